// libFuzzer target: a module profile's model fields as the profile reader takes them (src/profile/module_spec.h,
// module_spec_from_json; its limits and rules: module_spec_rules.h), on any bytes read as strict JSON. The
// profile_file_fuzzer reaches the same reader only through a whole profile file; this one starts at the module
// entry, so every input that parses is a module entry's object (or another JSON value) handed to it.
//
// For every input that parses (parse_strict_json) as JSON:
//  * module_spec_from_json returns a spec, its key and type problems appended (nothing thrown: any exception
//    is a finding);
//  * a spec read without problems writes its own fields (to_json) and reads them back to the same fields;
//  * a spec read without problems whose problems() (the limits, seen without running anything) are none gives
//    cases() within the limits: at most kMaxCases, the export case first and expected to match, case names
//    unique, one shape per input of the input's rank, each size >= 0 (a refusal case's sizes included) and each
//    input within kMaxTensorBytes at the export shapes.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "profile/module_spec.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "module_spec_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

void check_round_trip(const nnx::ModuleSpec& spec) {
  const nlohmann::json written = spec.to_json();
  std::vector<std::string> problems;
  const nnx::ModuleSpec again = nnx::module_spec_from_json(written, problems);
  if (!problems.empty()) finding("a spec's own fields are refused", problems.front());
  if (again.to_json() != written) finding("a spec's own fields read back to other fields", written.dump());
}

void check_cases(const nnx::ModuleSpec& spec) {
  const auto cases = spec.cases();
  if (cases.empty() || cases.size() > nnx::module_limits::kMaxCases) finding("cases outside 1..kMaxCases");
  if (cases.front().expect != nnx::rf::kExpectMatch) finding("the export case is not a match case");
  std::set<std::string> names;
  for (const auto& c : cases) {
    if (!names.insert(c.name).second) finding("a case name given twice", c.name);
    if (c.input_shapes.size() != spec.inputs.size()) finding("a case without one shape per input", c.name);
    for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
      if (c.input_shapes[i].size() != spec.inputs[i].shape.size()) finding("a case shape of another rank", c.name);
      for (const std::int64_t d : c.input_shapes[i]) {
        if (d < 0) finding("a case with a negative size", c.name);
      }
    }
  }
  const auto shapes = spec.export_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::uint64_t bytes = nnx::dtype_size(spec.inputs[i].dtype);
    for (const std::int64_t d : shapes[i]) {
      bytes *= static_cast<std::uint64_t>(d);
      if (bytes > nnx::module_limits::kMaxTensorBytes) finding("an accepted input over kMaxTensorBytes");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json value;
  try {
    value = nnx::parse_strict_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const nnx::Error&) {
    return 0;
  }
  std::vector<std::string> problems;
  nnx::ModuleSpec spec;
  try {
    spec = nnx::module_spec_from_json(value, problems);
  } catch (const std::exception& e) {
    finding("module_spec_from_json threw", e.what());
  }
  if (!problems.empty()) return 0;
  check_round_trip(spec);
  if (spec.problems().empty()) check_cases(spec);
  return 0;
}
