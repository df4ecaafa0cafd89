// Python objects straight into the core's JSON value, or onto a tape (base/json_tape.h: `tape_from_python`)
// that the record rules read in place (doc/record-format.md §6 strict JSON), so that records cross the
// Python boundary without being written as text and parsed again.
//
// `json_from_python` takes what python/nnx/export_conformance.py's `_dumps(value, what)` accepts and builds
// the value the core's strict parser (base/json_strict.h) would have read from that text: dict and every
// other Mapping → object; list, tuple and every other Sequence but str/bytes/bytearray → array; str →
// string; bool → boolean; int → integer (a non-negative one unsigned, as the parser reads it); float →
// float; None → null. It refuses, with a ConformanceError "<what> is not strict JSON: <why>", exactly what
// that path refused, with the same reasons where Python's json gave them:
//   "Out of range float values are not JSON compliant"  NaN or ±Infinity (a value, or a float key)
//   "keys must be str, int, float, bool or None, not T"  a key json.dumps cannot write
//   "Object of type T is not JSON serializable"          anything else (bytes, objects, sets)
//   "it does not survive a JSON round trip unchanged (a non-string key?)"  an int, float, bool or None key
//   "integer N does not fit in int64 or uint64", "nesting deeper than 128 levels" (also a cycle),
//   "invalid surrogate escape: a string holds a lone surrogate"  the core parser's refusals of that text
//   "the items() of a T gave a non-pair"  a Mapping whose items are not (key, value) pairs
// Everything read is held by a new reference while it is read (a Mapping's items() as a list of our own),
// so a Mapping or Sequence whose methods change or free the containers around it is never a crash.
// The first refusal in json.dumps' order wins; a non-string key is named only when nothing else is wrong,
// as the round trip ran only after json.dumps succeeded. Must be called with the GIL held.
#pragma once

#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "base/json_tape.h"

namespace nnx::python {

nlohmann::json json_from_python(pybind11::handle value, const std::string& what);

// The same value recorded flat (base/json_tape.h): the part that needs the GIL. Its `to_json()` (the same
// value json_from_python returns) may run on any thread, without the GIL.
JsonTape tape_from_python(pybind11::handle value, const std::string& what);
// The same into `tape` (cleared first; its memory reused).
void tape_from_python(pybind11::handle value, const std::string& what, JsonTape& tape);

}  // namespace nnx::python
