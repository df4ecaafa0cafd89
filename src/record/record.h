// Building a record of nnx.export-conformance/1 (record-format §5): exactly 17 keys.
//
// `blank_record` states the profile with every stage not_run, blank input cases and unknown results.
// `set_stage` records one stage's outcome; `finalize_record` derives status, failure and level from the
// stages (status passed iff all five passed; failure = the first failed stage's class; level executed
// when parity passed, structural when check passed, none otherwise).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/failure.h"
#include "profile/profile.h"

namespace nnx {

using json = nlohmann::json;

struct SourceInfo {
  json revision;   // string or null
  std::string origin = "unknown";  // "given" | "git" | "unknown"
  json dirty;      // bool when detected from git, else null
};

json blank_record(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256);
json blank_input_case(const InputCase& c);
json session_options_json();

void set_stage_passed(json& record, Stage stage, json detail);
void set_stage_failed(json& record, Stage stage, FailureClass failure, json detail);
void finalize_record(json& record);

}  // namespace nnx
