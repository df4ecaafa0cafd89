// Test support (tests only): records built the way the engine builds one (blank_record, set_stage_passed /
// set_stage_failed for every stage that ran, cases filled as a parity run fills them, finalize_record), so
// that record and validator tests start from what a run writes (doc/record-format.md §1, §4, §6).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/failure.h"
#include "profile/profile.h"
#include "record/record.h"

namespace nnx::test_support {

// The digests engine_record states: the model's weights (weights_sha256) and model.onnx.
inline const std::string kWeightsSha(64, 'a');
inline const std::string kModelSha(64, 'b');

// The tested profile of that name, else a default profile renamed.
Profile named_profile(const std::string& name);

// The record of a run of `p`: the stages before `last` pass; `last` passes too unless `failure` is given
// (for a parity failure, the first case fails with that class); later stages do not run. Each stage writes
// what the engine writes when it runs (the check stage states the signature `p` exports).
json engine_record(const Profile& p, Stage last, std::optional<FailureClass> failure = std::nullopt);

// A validator's problems, one a line, for a failure message.
std::string joined(const std::vector<std::string>& problems);

}  // namespace nnx::test_support
