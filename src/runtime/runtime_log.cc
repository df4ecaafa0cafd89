#include "runtime/runtime_log.h"

namespace nnx {
namespace {

thread_local RuntimeLogCapture* current_capture = nullptr;

bool is_control(unsigned char c) { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f; }

}  // namespace

std::string runtime_log_text(const char* message) {
  std::string text;
  const std::string_view in = message ? message : "";
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == 0x1b && i + 1 < in.size() && in[i + 1] == '[') {  // CSI: ESC [ parameters final byte (@..~)
      i += 2;
      while (i < in.size() && !(in[i] >= '@' && in[i] <= '~')) ++i;
      continue;
    }
    if (!is_control(c)) text += in[i];
  }
  if (text.size() > RuntimeLogCapture::kMaxMessageBytes) {
    std::size_t cut = RuntimeLogCapture::kMaxMessageBytes - 3;  // room for "…"
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    text.resize(cut);
    text += "\xE2\x80\xA6";
  }
  return text;
}

RuntimeLogCapture::RuntimeLogCapture() : outer_(current_capture) { current_capture = this; }

RuntimeLogCapture::~RuntimeLogCapture() { current_capture = outer_; }

void RuntimeLogCapture::keep(const char* message) {
  if (messages_.size() < kMaxMessages) {
    messages_.push_back(runtime_log_text(message));
  } else {
    ++dropped_;
  }
}

void ORT_API_CALL keep_runtime_log_line(void*, OrtLoggingLevel, const char*, const char*, const char*,
                                        const char* message) {
  if (current_capture != nullptr) current_capture->keep(message);
}

}  // namespace nnx
