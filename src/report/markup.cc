#include "report/markup.h"

#include "report/document.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace nnx::report {

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 holds no other control character
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// U+2060 WORD JOINER: invisible, and no autolink, mention or reference runs across it.
constexpr const char* kWordJoiner = "\xE2\x81\xA0";

bool starts_with_ascii_nocase(const std::string& text, std::size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  }
  return true;
}

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '\n': out += "<br>"; continue;
      case '\r': continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '&': out += "&amp;"; continue;
      // Markdown's own punctuation: no [link](url), ![image](url), emphasis, strike or code from a record's text.
      case '\\': case '|': case '`': case '[': case ']': case '*': case '_': case '~':
        out += '\\';
        out += c;
        continue;
      // @user, #123, a@b.example: no mention, reference or mail link (the joiner goes after the sign).
      case '@': case '#':
        out += c;
        out += kWordJoiner;
        continue;
      default: break;
    }
    out += c;
    // http://..., www....: no bare autolink (the joiner goes between the scheme and its slashes, after www).
    const bool www = starts_with_ascii_nocase(text, i, "www.");
    if ((c == ':' && text.compare(i + 1, 2, "//") == 0) || www) {
      if (www) {
        out += text.substr(i + 1, 2);
        i += 2;
      }
      out += kWordJoiner;
    }
  }
  return out;
}

std::string markdown_code(const std::string& text) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '|') body += "\\|";  // a table's cell ends at a bare '|', in a code span too (GFM)
    else if (c == '\n' || c == '\r') body += ' ';
    else body += c;
  }
  // A fence longer than any run of backticks inside; a space pads a body that starts or ends with one.
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string status_badge(const std::string& status) {
  return "<span class=\"badge status-" + escape_html(status) + "\">" + escape_html(status_label(status)) + "</span>";
}

std::string number_html(const nlohmann::json& value) {
  const std::string shown = shown_text(value), exact = value_text(value);
  if (shown == exact) return escape_html(shown);
  return "<span class=\"number\" title=\"" + escape_html(exact) + "\">" + escape_html(shown) + "</span>";
}

}  // namespace nnx::report
