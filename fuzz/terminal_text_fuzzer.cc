// libFuzzer target: the rule that keeps untrusted text from driving a terminal (src/base/terminal_text.h,
// visible_controls and TerminalStreams, issue 38's terminal escapes: a record's text printed by `report`,
// `validate`), on any bytes. The first byte chooses the size of the pieces (1..256) the rest is written in
// through std::cout under TerminalStreams, as the command line prints a record's text piece by piece.
//
// For every input:
//  * visible_controls keeps no control a terminal acts on: no C0 byte but newline and tab, no DEL, no UTF-8
//    C1 control (C2 80..C2 9F);
//  * it changes nothing else: text without those controls comes back byte for byte;
//  * the text written through TerminalStreams in pieces, flushed after each, reaches the stream behind as
//    exactly visible_controls of the whole text (a C1 control split across two writes is caught too).
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "base/terminal_text.h"

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "terminal_text_fuzzer: %s\n", what);
  __builtin_trap();
}

bool has_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80) return true;
  }
  return false;
}

std::string through_streams(std::string_view text, std::size_t piece) {
  std::stringbuf out_behind, err_behind;
  std::streambuf* const out_before = std::cout.rdbuf(&out_behind);
  std::streambuf* const err_before = std::cerr.rdbuf(&err_behind);
  {
    const nnx::TerminalStreams streams;
    for (std::size_t at = 0; at < text.size(); at += piece) {
      const std::string_view chunk = text.substr(at, piece);
      std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      std::cout.flush();
    }
  }
  std::cout.rdbuf(out_before);
  std::cerr.rdbuf(err_before);
  std::cout.clear();
  return out_behind.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = std::size_t{data[0]} + 1;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string visible = nnx::visible_controls(text);
  if (has_control(visible)) finding("a control character left in the visible text");
  if (!has_control(text) && visible != text) finding("text without controls was changed");
  if (through_streams(text, piece) != visible) finding("the streams, written in pieces, differ from the rule");
  return 0;
}
