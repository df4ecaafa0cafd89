// Escaping for the pages the renderers write (doc/cli.md, "Looking at the evidence"): text and attribute values
// in HTML and XML (& < > " ' escaped); in XML, characters XML 1.0 cannot hold (control characters other
// than tab, newline and carriage return) are written as U+FFFD so that every JUnit consumer can parse the file.
// Markdown table cells (text a record holds, untrusted: nothing in it may be live in a pull-request comment):
// `markdown_cell` escapes Markdown's punctuation (\ | ` [ ] * _ ~: no [link](url), ![image](url), emphasis,
// strike or code span), writes & < > as entities (no HTML) and newlines as <br>, and puts an invisible
// U+2060 WORD JOINER after '@' and '#', between "://" 's colon and slashes and after "www" (no mention,
// issue reference, mail or bare autolink). `markdown_code` is the text as one code span (nothing inside is
// live), fenced by more backticks than any run it holds; '|' escaped, newlines as spaces.
// `status_badge` is a status as the HTML page's coloured badge; `number_html` a number as the page shows it
// (shown_text, report/document.h: 3 significant digits), the exact value on hover.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnx::report {

std::string escape_html(const std::string& text);
std::string escape_xml(const std::string& text);
std::string markdown_cell(const std::string& text);
std::string markdown_code(const std::string& text);
std::string status_badge(const std::string& status);
std::string number_html(const nlohmann::json& value);

}  // namespace nnx::report
