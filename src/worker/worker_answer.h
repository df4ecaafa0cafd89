// worker_answer.h — one answer line of the worker as the core reads it (worker/PROTOCOL.md, "Process":
// exactly one strict JSON line per request, an object with a boolean "ok").
//
// Contract:
//  * parse_worker_answer(line, what) reads the line with the strict JSON reader (base/json_strict.h: no
//    NaN, no duplicate key, valid UTF-8, nesting at most kMaxJsonDepth, so every later walk or dump of the
//    answer is bounded) and returns the object. Anything else throws WorkerError(malformed) "malformed
//    response to <what> (not JSON: <why>)" or "(not an object with a boolean "ok")", each followed by
//    "; first bytes: " and quote_bytes(line, 64). It never throws anything else.
//  * quote_bytes(bytes, limit): at most `limit` bytes, in double quotes, printable ASCII as is and every
//    other byte (and `"`, `\`) as \xHH, " ..." after when bytes were cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nnx {

nlohmann::json parse_worker_answer(std::string_view line, const std::string& what);

std::string quote_bytes(std::string_view bytes, std::size_t limit);

}  // namespace nnx
