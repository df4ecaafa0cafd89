// Text for a terminal: the one rule that keeps untrusted text (a record's, a report's, a worker's) from
// driving the terminal it is printed on. `visible_controls` spells every control character as text: C0
// controls but newline and tab, DEL as `\xNN` (ESC is `\x1b`, BEL `\x07`, CR `\x0d`) and the C1 controls
// U+0080..U+009F (UTF-8 C2 80..C2 9F, which a terminal may take for ESC sequences) as `\u0080`..`\u009f`;
// every other byte is kept. `TerminalStreams` puts the rule on std::cout and std::cerr for its lifetime:
// everything the command line prints through them passes it (cli/cli_main.cc), while the exceptions and
// documents themselves keep the text as it was. The live progress line (cli/run_progress.cc) writes its own
// ESC sequence with stdio, not through these streams.
#pragma once

#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace nnx {

std::string visible_controls(std::string_view text);

class TerminalStreams {
 public:
  TerminalStreams();
  ~TerminalStreams();
  TerminalStreams(const TerminalStreams&) = delete;
  TerminalStreams& operator=(const TerminalStreams&) = delete;

 private:
  class Filter;
  std::unique_ptr<Filter> out_;
  std::unique_ptr<Filter> err_;
};

}  // namespace nnx
