// worker_answer.cc — one answer line read; contract in worker_answer.h.
#include "worker/worker_answer.h"

#include <cstdio>

#include "base/json_strict.h"
#include "worker/worker_error.h"

namespace nnx {

std::string quote_bytes(std::string_view bytes, std::size_t limit) {
  std::string out = "\"";
  for (unsigned char c : bytes.substr(0, limit)) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  out += "\"";
  if (bytes.size() > limit) out += " ...";
  return out;
}

nlohmann::json parse_worker_answer(std::string_view line, const std::string& what) {
  nlohmann::json parsed;
  try {
    parsed = parse_strict_json(line);
  } catch (const JsonError& e) {
    throw WorkerError(WorkerError::Kind::malformed, "malformed response to " + what + " (not JSON: " + e.what() +
                                                        "); first bytes: " + quote_bytes(line, 64));
  }
  const auto ok = parsed.find("ok");
  if (!parsed.is_object() || ok == parsed.end() || !ok->is_boolean()) {
    throw WorkerError(WorkerError::Kind::malformed, "malformed response to " + what +
                                                        " (not an object with a boolean \"ok\"); first bytes: " +
                                                        quote_bytes(line, 64));
  }
  return parsed;
}

}  // namespace nnx
