// JSON text byte for byte as Python's json.dumps writes it (doc/record-format.md §3 canonical settings text,
// §8 report file), with ensure_ascii=True and sort_keys=True: keys in code point order, non-ASCII and
// control characters escaped (\uXXXX, lowercase hex, surrogate pairs above U+FFFF; \n \r \t \b \f; DEL
// as \u007f), '/' unescaped, integers (int64 and uint64) plain, floats as Python's repr(float).
// Refused with JsonError: NaN/Infinity, strings that are not valid UTF-8, binary or discarded values,
// nesting deeper than kMaxJsonDepth (what is written can be read back by parse_strict_json).
#pragma once

#include <string>

#include "base/json_strict.h"

namespace nnx {

// Python's repr(float): shortest round-trip digits; exponent form ('1e-05', '1.5e+16') when the decimal
// exponent is < -4 or >= 16, else positional with at least one fractional digit ('0.0001', '123.0').
std::string python_float_repr(double value);

// json.dumps(value, sort_keys=True, separators=(", ", ": ")): one line.
std::string dumps_canonical(const json& value);

// Throws exactly the JsonError dumps_canonical would throw for `value` (the first problem in writing
// order), without writing: what can be written reads back unchanged with parse_strict_json.
void check_writable(const json& value);

// json.dumps(value, sort_keys=True, indent=2): items end with "," at line ends, keys with ": ", empty
// containers written [] and {}; no trailing newline.
std::string dumps_pretty(const json& value);

// True when display_json(a) == display_json(b), decided without writing either: integers by value (17 and
// 17u alike, never equal to 17.0), floats bit for bit (all NaNs alike), strings byte for byte, containers
// member by member.
bool same_canonical(const json& a, const json& b);
// same_canonical's rule for two floats: the same bits, or both NaN (any NaN).
bool same_float(double x, double y);

// Canonical text of a value for messages; never throws (NaN/Infinity and values the writer refuses are
// shown as nlohmann writes them, invalid UTF-8 replaced).
std::string display_json(const json& value);

}  // namespace nnx
