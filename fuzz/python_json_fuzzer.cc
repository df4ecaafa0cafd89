// libFuzzer target: the core's reader of Python objects (src/python/python_json.h: json_from_python and
// tape_from_python), on Python values built from any bytes by fuzz/python_values.py (nested dicts, lists,
// tuples, str with lone surrogates, ints beyond 64 bits, floats with NaN and infinities, bool, None, custom
// Mappings and Sequences, bytes, sets, cycles).
//
// For every input, against the path it must agree with (nnx._boundary._dumps, then the core's strict
// parser, base/json_strict.h):
//  * json_from_python returns a value or throws ConformanceError "fuzz value is not strict JSON: ..."
//    (a Python exception or anything else escaping is a finding);
//  * it refuses exactly what that path refuses, and what it accepts is the value that path reads
//    (compared as canonical text, so 1 and 1.0 differ);
//  * tape_from_python's value is json_from_python's.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined; libpython).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/error.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "embedded_python.h"
#include "python/python_json.h"

namespace {

namespace py = pybind11;
constexpr const char* kTarget = "python_json_fuzzer";
const std::string kWhat = "fuzz value";

// What the reader returns for `value`, or nullopt when it refuses (a refusal must be worded as documented).
std::optional<std::string> read_canonical(const py::handle& value) {
  try {
    const nlohmann::json read = nnx::python::json_from_python(value, kWhat);
    const std::string canonical = nnx::dumps_canonical(read);
    if (nnx::dumps_canonical(nnx::python::tape_from_python(value, kWhat).to_json()) != canonical) {
      nnx_fuzz::python_finding(kTarget, "tape_from_python and json_from_python differ");
    }
    return canonical;
  } catch (const nnx::ConformanceError& e) {
    if (std::string(e.what()).rfind(kWhat + " is not strict JSON: ", 0) != 0) {
      nnx_fuzz::python_finding(kTarget, std::string("a refusal worded otherwise: ") + e.what());
    }
    return std::nullopt;
  } catch (const py::error_already_set& e) {
    nnx_fuzz::python_finding(kTarget, std::string("a Python exception escaped the reader: ") + e.what());
  }
}

// What _dumps + the strict parser make of `value`, or nullopt when either refuses.
std::optional<std::string> expected_canonical(const py::object& dumps_or_none, const py::handle& value) {
  py::object text;
  try {
    text = dumps_or_none(value);
  } catch (const py::error_already_set& e) {
    nnx_fuzz::python_finding(kTarget, std::string("_dumps raised: ") + e.what());
  }
  if (text.is_none()) return std::nullopt;
  try {
    return nnx::dumps_canonical(nnx::parse_strict_json(text.cast<std::string>()));
  } catch (const nnx::JsonError&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static py::module_ values = nnx_fuzz::python_module(kTarget, "python_values");
  static py::object build = values.attr("build");
  static py::object dumps_or_none = values.attr("dumps_or_none");
  py::object value;
  try {
    value = build(py::bytes(reinterpret_cast<const char*>(data), size));
  } catch (const py::error_already_set& e) {
    nnx_fuzz::python_finding(kTarget, std::string("building the value raised: ") + e.what());
  }
  const std::optional<std::string> read = read_canonical(value);
  const std::optional<std::string> expected = expected_canonical(dumps_or_none, value);
  if (read.has_value() != expected.has_value()) {
    nnx_fuzz::python_finding(kTarget, read ? "the reader accepts what _dumps + the strict parser refuse: " + *read
                                           : "the reader refuses what _dumps + the strict parser accept: " + *expected);
  }
  if (read && *read != *expected) nnx_fuzz::python_finding(kTarget, "read " + *read + ", expected " + *expected);
  return 0;
}
