// Test support (tests only): what the validate_record units expect of a record (doc/record-format.md §6). A
// refused record must be refused by record_problems with a problem naming the rule and by validate_record with
// the same words; the rules read from a tape in reverse key order (as a Python dict may hold a record) find the
// same problems. The records are built the way the engine builds one (engine_record.h).
#pragma once

#include <string>

#include "base/json_python.h"
#include "profile/profile.h"

namespace nnx::test_support {

// A record of a run of the tested profile `name` whose every stage passed.
json passed_record(const std::string& name = kTorchscriptProfile);

// A failed parity: batch-1 mismatched (compared), batch-7 refused although valid (input-contract).
json failed_parity_record();

// A passed record of a profile that is not a tested one (feedfwd-static-1-5: a static batch, batches 1 and 5).
json custom_profile_record();

// The record has no problem, and validate_record accepts it.
void expect_accepted(const json& record);

// Some problem names `substring`, and validate_record throws a ConformanceError that names it too.
void expect_refused(const json& record, const std::string& substring);

}  // namespace nnx::test_support
