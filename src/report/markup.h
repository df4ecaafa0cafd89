// Escaping for the pages the renderers write (README, "Looking at the evidence"): text and attribute values
// in HTML and XML (& < > " ' escaped); in XML, characters XML 1.0 cannot hold (control characters other
// than tab, newline and carriage return) are written as U+FFFD so that every JUnit consumer can parse the file.
// Markdown table cells: '|' escaped, newlines as <br>, HTML-significant characters escaped, and '[' ']'
// escaped so that no [link](url) or ![image](url) from a record's text is live in a pull-request comment.
#pragma once

#include <string>

namespace nnx::report {

std::string escape_html(const std::string& text);
std::string escape_xml(const std::string& text);
std::string markdown_cell(const std::string& text);

}  // namespace nnx::report
