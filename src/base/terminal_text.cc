// terminal_text.cc — control characters made visible; contract in terminal_text.h.
#include "base/terminal_text.h"

#include <cstdio>
#include <iostream>

namespace nnx {
namespace {

constexpr unsigned char kC1Lead = 0xC2;  // UTF-8 of U+0080..U+00BF: C2 80..C2 BF

bool is_c0_control(unsigned char c) { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F; }

bool is_c1_second_byte(unsigned char c) { return c >= 0x80 && c <= 0x9F; }

std::string spelled(const char* format, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, c);
  return buf;
}

}  // namespace

std::string visible_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c0_control(c)) {
      out += spelled("\\x%02x", c);
    } else if (c == kC1Lead && i + 1 < text.size() && is_c1_second_byte(static_cast<unsigned char>(text[i + 1]))) {
      out += spelled("\\u00%02x", static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A stream buffer in front of another: what is written collects here and reaches the one behind through
// visible_controls at every flush, but for a trailing C2 byte, held until the byte after it says what it is.
class TerminalStreams::Filter : public std::streambuf {
 public:
  explicit Filter(std::ostream& stream) : stream_(stream), behind_(stream.rdbuf(this)) {}
  ~Filter() override {
    pass_on(true);
    stream_.rdbuf(behind_);
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    pending_ += traits_type::to_char_type(c);
    if (c == '\n' && pass_on(false) != 0) return traits_type::eof();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::string_view chunk(s, static_cast<std::size_t>(n));
    pending_ += chunk;
    if (chunk.find('\n') != std::string_view::npos && pass_on(false) != 0) return 0;
    return n;
  }
  int sync() override { return pass_on(false); }

 private:
  int pass_on(bool all) {
    std::size_t end = pending_.size();
    if (!all && end > 0 && static_cast<unsigned char>(pending_[end - 1]) == kC1Lead) --end;
    const std::string text = visible_controls(std::string_view(pending_).substr(0, end));
    pending_.erase(0, end);
    const auto written = behind_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    const bool flushed = behind_->pubsync() == 0;
    return written == static_cast<std::streamsize>(text.size()) && flushed ? 0 : -1;
  }

  std::ostream& stream_;
  std::streambuf* behind_;
  std::string pending_;
};

TerminalStreams::TerminalStreams()
    : out_(std::make_unique<Filter>(std::cout)), err_(std::make_unique<Filter>(std::cerr)) {}

TerminalStreams::~TerminalStreams() = default;

}  // namespace nnx
