// The names a Python file binds, by a scan of its tokens (python_names.h).
#include "profile/python_names.h"

#include <algorithm>
#include <array>

namespace nnx {
namespace {

struct Token {
  std::string text;
  bool name = false;  // an identifier (keywords included)
};
using Statement = std::vector<Token>;

bool name_start(unsigned char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80; }
bool name_char(unsigned char c) { return name_start(c) || (c >= '0' && c <= '9'); }

// The index just past the string literal whose quote is at `at` (a triple quote included).
std::size_t skip_string(std::string_view s, std::size_t at) {
  const char quote = s[at];
  const bool triple = s.substr(at, 3) == std::string(3, quote);
  std::size_t i = at + (triple ? 3 : 1);
  while (i < s.size()) {
    if (s[i] == '\\') {
      i += 2;
    } else if (triple ? s.substr(i, 3) == std::string(3, quote) : s[i] == quote) {
      return i + (triple ? 3 : 1);
    } else if (!triple && s[i] == '\n') {
      return i;  // an unterminated string: the line ends it
    } else {
      ++i;
    }
  }
  return s.size();
}

// The file's statements as tokens: a newline outside brackets (and not after a backslash) or a `;` ends one.
std::vector<Statement> statements_of(std::string_view s) {
  std::vector<Statement> out(1);
  int depth = 0;
  auto end_statement = [&] {
    if (!out.back().empty()) out.emplace_back();
  };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
    } else if (c == '\n' || (c == ';' && depth == 0)) {
      if (depth == 0) end_statement();
      ++i;
    } else if (c == '\'' || c == '"') {
      i = skip_string(s, i);
      out.back().push_back({"\"\"", false});
    } else if (name_start(c)) {
      std::size_t j = i;
      while (j < s.size() && name_char(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (s[j] == '\'' || s[j] == '"') && j - i <= 2) {  // a prefixed literal: r"", b'', f""
        i = skip_string(s, j);
        out.back().push_back({"\"\"", false});
        continue;
      }
      out.back().push_back({std::string(s.substr(i, j - i)), true});
      i = j;
    } else {
      static constexpr std::array<std::string_view, 14> kPairs = {"==", "!=", "<=", ">=", ":=", "+=", "-=", "*=",
                                                                  "/=", "%=", "&=", "|=", "^=", "->"};
      std::string text(1, static_cast<char>(c));
      for (const auto pair : kPairs) {
        if (s.substr(i, 2) == pair) text = pair;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      if (c != ' ' && c != '\t' && c != '\r') out.back().push_back({text, false});
      i += text.size();
    }
  }
  return out;
}

bool is(const Token& t, std::string_view text) { return t.text == text; }

void add_name(PythonNames& out, const std::string& name) {
  if (std::find(out.bound.begin(), out.bound.end(), name) == out.bound.end()) out.bound.push_back(name);
}

// An import statement's names: `import a.b` binds a, `x as y` binds y (x too, over-approximated), `*` anything.
void import_names(const Statement& st, PythonNames& out) {
  auto start = std::find_if(st.begin(), st.end(), [](const Token& t) { return is(t, "import"); });
  if (start == st.end()) return;
  bool first = true;  // the next name starts an item
  for (auto it = start + 1; it != st.end(); ++it) {
    if (is(*it, "*")) out.dynamic = true;
    if (is(*it, ",")) first = true;
    if (is(*it, "as") && it + 1 != st.end()) add_name(out, (++it)->text);
    if (it->name && first && !is(*it, "as")) {
      add_name(out, it->text);
      first = false;
    }
  }
}

// The plain names left of each `=` outside brackets: assignment targets, `(a, b)` and `[a, b]` included; a name
// inside a subscript or a call's brackets (`t[make] =`, `f(make).x =`) is read, not bound.
void assigned_names(const Statement& st, PythonNames& out) {
  std::vector<bool> brackets;  // open brackets, innermost last: true for a subscript's or a call's
  std::vector<std::size_t> targets;
  for (std::size_t i = 0; i < st.size(); ++i) {
    const std::string& t = st[i].text;
    if (t == "(" || t == "[" || t == "{") {
      brackets.push_back(i > 0 && (st[i - 1].name || is(st[i - 1], ")") || is(st[i - 1], "]")));
    } else if ((t == ")" || t == "]" || t == "}") && !brackets.empty()) {
      brackets.pop_back();
    } else if (t == "=" && brackets.empty()) {
      for (const std::size_t k : targets) add_name(out, st[k].text);
      targets.clear();
    } else if (st[i].name && std::find(brackets.begin(), brackets.end(), true) == brackets.end()) {
      const bool after_dot = i > 0 && is(st[i - 1], ".");
      const bool before_use = i + 1 < st.size() && (is(st[i + 1], ".") || is(st[i + 1], "(") || is(st[i + 1], "["));
      if (!after_dot && !before_use) targets.push_back(i);
    }
  }
}

}  // namespace

PythonNames names_bound_in(std::string_view source) {
  static constexpr std::array<std::string_view, 7> kDynamic = {"globals", "vars", "setattr", "exec", "__getattr__",
                                                               "__dict__", "__builtins__"};
  PythonNames out;
  for (const Statement& st : statements_of(source)) {
    if (st.empty()) continue;
    if (is(st.front(), "import") || is(st.front(), "from")) {
      import_names(st, out);
      continue;
    }
    for (std::size_t i = 0; i < st.size(); ++i) {
      const Token& t = st[i];
      if (t.name && std::find(kDynamic.begin(), kDynamic.end(), t.text) != kDynamic.end()) out.dynamic = true;
      const bool next_is_name = i + 1 < st.size() && st[i + 1].name;
      if ((is(t, "def") || is(t, "class") || is(t, "as")) && next_is_name) add_name(out, st[i + 1].text);
      if (t.name && i + 1 < st.size() && is(st[i + 1], ":=")) add_name(out, t.text);
      if (is(t, "for")) {
        for (std::size_t k = i + 1; k < st.size() && !is(st[k], "in"); ++k) {
          if (st[k].name) add_name(out, st[k].text);
        }
      }
    }
    assigned_names(st, out);
  }
  return out;
}

}  // namespace nnx
