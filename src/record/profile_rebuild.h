// The settings a record states, and the Profile they rebuild into (doc/record-format.md §3, §6 settings rule).
//
// `record_settings` builds the canonical settings object of §3 from the record's own values: tolerances
// {rtol, atol} (numbers as floats), input cases (name, shape, seed, expect of every case), dtype, runtime
// [name, provider], exporter options as given (17 vs 17.0 and true vs 1 differ), model config without
// weights_sha256 (dropout and std as floats), artifact directory = artifacts.directory. It never throws:
// a missing or mistyped part is taken as given (or null), so the comparison below names it.
//
// `profile_from_record` rebuilds the Profile a record states (name = profile; exporter options →
// exporter, opset, dynamic batch, export batch; batches from the `match` cases in order; tolerances;
// runtime and provider; dtype; model from config) and appends a problem for every wrong type and for a case
// list or exporter options that no Profile produces.
//
// `settings_problems` is the settings rule of validate_record: a tested profile name must state exactly
// the tested profile's canonical text; any other name must rebuild into a valid Profile whose canonical
// text equals the record's. Each difference is named by its place in the settings object.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_view.h"
#include "profile/profile.h"

namespace nnx {

using json = nlohmann::json;

json record_settings(const json& record);

Profile profile_from_record(const json& record, std::vector<std::string>& problems);

std::vector<std::string> settings_problems(const json& record);
// The same read in place: a tested profile's record is decided without building a value; any other is
// built and compared as above.
std::vector<std::string> settings_problems(const JsonView& record);

}  // namespace nnx
