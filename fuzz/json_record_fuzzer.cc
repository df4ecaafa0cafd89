// libFuzzer target: the strict JSON reader, the record validator and the Python-exact writer, on any bytes.
//
// For every input:
//  * parse_strict_json either returns a value or throws JsonError (anything else is a finding);
//  * record_problems never throws, on the value itself and, for a report, on each of its profiles;
//  * a parsed value is written by dumps_canonical and dumps_pretty without error, both texts parse back
//    with parse_strict_json, and the value read back writes the same canonical text (a round trip changes
//    nothing: 17 stays 17, 17.0 stays 17.0, -0.0 stays -0.0, key order and escapes are stable);
//  * a value record_problems accepts is also accepted by validate_record, and vice versa.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "record/validate_record.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "json_record_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

void check_record(const nnx::json& value) {
  const auto problems = nnx::record_problems(value);  // documented never to throw
  for (const auto& p : problems) {
    if (p.empty()) finding("record_problems returned an empty problem text");
  }
  bool refused = false;
  try {
    nnx::validate_record(value);
  } catch (const nnx::ConformanceError&) {
    refused = true;
  }
  if (refused != !problems.empty()) finding("validate_record and record_problems disagree");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nnx::json value;
  try {
    value = nnx::parse_strict_json(text);
  } catch (const nnx::JsonError& e) {
    if (std::string_view(e.what()).empty()) finding("JsonError without a message");
    return 0;
  }

  check_record(value);
  if (value.is_object() && value.contains("profiles") && value["profiles"].is_array()) {
    for (const auto& record : value["profiles"]) check_record(record);
  }

  std::string canonical, pretty;
  try {
    canonical = nnx::dumps_canonical(value);
    pretty = nnx::dumps_pretty(value);
  } catch (const nnx::JsonError& e) {
    finding("a value parse_strict_json accepted cannot be written", e.what());
  }
  for (const std::string* written : {&canonical, &pretty}) {
    nnx::json again;
    try {
      again = nnx::parse_strict_json(*written);
    } catch (const nnx::JsonError& e) {
      finding("written text does not parse back", e.what());
    }
    std::string canonical_again;
    try {
      canonical_again = nnx::dumps_canonical(again);
    } catch (const nnx::JsonError& e) {
      finding("a value read back cannot be written", e.what());
    }
    if (canonical_again != canonical) finding("the canonical round trip changed the value", canonical.substr(0, 200));
  }
  return 0;
}
