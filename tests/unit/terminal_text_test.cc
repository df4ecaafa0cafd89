// Untrusted text reaches a terminal with its control characters spelled as text (base/terminal_text.h): no
// ESC, BEL or C1 control passes, newline, tab and every other character (UTF-8 included) are kept, and the
// streams the command line prints through apply the rule however the text is cut into writes.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>

#include "base/terminal_text.h"

namespace nnx {
namespace {

TEST(TerminalText, ControlCharactersAreSpelledAsText) {
  EXPECT_EQ(visible_controls("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
  EXPECT_EQ(visible_controls(std::string("\0\r\x7f", 3)), "\\x00\\x0d\\x7f");
  EXPECT_EQ(visible_controls("\xC2\x9B" "2J"), "\\u009b2J");  // U+009B: CSI
}

TEST(TerminalText, NewlinesTabsAndOtherTextAreKept) {
  const std::string text = "line\tcell\nnext \xC3\xA9 \xC2\xA0 \xE2\x9C\x85 \xC2";
  EXPECT_EQ(visible_controls(text), text);
}

TEST(TerminalText, TheStreamsApplyTheRuleAcrossWrites) {
  std::ostringstream out;
  std::streambuf* real = std::cout.rdbuf(out.rdbuf());
  {
    const TerminalStreams terminal;
    std::cout << "x\x1b" << "[0m\xC2" << std::flush << "\x9b!" << '\a' << "\n";
  }
  std::cout.rdbuf(real);
  EXPECT_EQ(out.str(), "x\\x1b[0m\\u009b!\\x07\n");
}

}  // namespace
}  // namespace nnx
