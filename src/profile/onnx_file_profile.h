// The ONNX-file profile's side of Profile (profile.h; doc/record-format.md §11; doc/profile-files.md, "Your own
// ONNX file"): what each Profile member does for a profile naming "onnx", beside the module rules, so that
// profile.cc only dispatches on Profile::kind(). An ONNX-file profile object has the keys name, onnx, and
// data or module or both (module: the factory the file is checked against, with bind, dims and input ranges as
// a module profile's; both: the data sets give the inputs, given_inputs.h, the module the reference) and,
// optionally, inputs (the graph's input names, in any order: a list that is not exactly the graph's is a
// problem naming both lists), opset_version (must be the file's own default-domain opset), rtol and atol
// (default the tested profiles'; `tolerances {rtol, atol}` read as their alias), runtime and provider; its
// exporter is "onnx-file" (the key may be left out). Its ModuleSpec is the graph's signature, its cases the
// data sets alone (onnx_file_spec.h) or the module rule's (module_spec.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile.h"

namespace nnx {

nlohmann::json onnx_file_exporter_options(const Profile& profile);
std::vector<InputCase> onnx_file_input_cases(const Profile& profile);
nlohmann::json onnx_file_settings(const Profile& profile);
nlohmann::json onnx_file_profile_json(const Profile& profile);
std::vector<std::string> onnx_file_profile_problems(const Profile& profile);
Profile onnx_file_profile_from_json(const nlohmann::json& value, std::vector<std::string>& problems);

}  // namespace nnx
