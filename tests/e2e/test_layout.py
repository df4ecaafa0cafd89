"""The layout rules of doc/architecture.md hold for the tree as committed.

- every C++ file under src/, include/ and bench/ is at most 400 lines, and every function defined in one at
  most 80 lines (counted from the line that opens its body to the line that closes it), whatever the wrapping
  of its signature, methods defined in class bodies and lambdas included;
- every file under python/, worker/, scripts/ and bench/ is at most 400 lines, and every Python function in
  one at most 80 lines (its `def` to its last line, as `ast` counts them); tests/ need not;
- every repository path named in the docs and the product's sources exists, and every cited heading
  (`doc/architecture.md, "The layers"`) is a heading of the cited document;
- every layer folder under src/ says what it holds (a README.md) and names each of its files;
- no file of the product (src/, worker/, python/) reads an NNX_TEST_* variable or imports a test module;
- no Python module of scripts/, worker/ or bench/ imports itself through the others of its folder (no import
  cycle: a part two modules share is a third module both import);
- a layer includes only the layers before it (the table of doc/architecture.md);
- the lines of shared code that tell one model kind from another are no more than the baseline of
  scripts/kind_dispatch_ratchet.py (the ratchet), each of the nine old ways counted on its own.
"""
import ast
import re
import shutil
import sys
from pathlib import Path

from conftest import REPO

SRC = REPO / "src"
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
LAYERS = ["base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker", "stages", "app", "matrix",
          "report", "api", "cli", "python"]
# What each layer may include besides itself (doc/architecture.md, "The layers").
ALLOWED = {
    "base": set(),
    "artifacts": {"base"},
    "onnx_file": {"base"},
    "profile": {"base", "artifacts", "onnx_file", "model"},
    "model": {"base"},
    "runtime": {"base"},
    "record": {"base", "artifacts", "profile", "model"},
    "worker": {"base", "runtime"},  # the worker inherits the runtime's telemetry switches
    "stages": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker"},
    "app": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker", "stages"},
    "matrix": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker", "stages", "app"},
    "report": {"base"},
    "api": {"base", "artifacts", "record", "app", "matrix"},  # include/nnx/conformance.h is included as <nnx/...>
    "cli": {"base", "artifacts", "profile", "model", "runtime", "record", "worker", "stages", "app", "matrix",
            "report"},
    "python": {"base", "artifacts", "profile", "model", "runtime", "record", "worker", "stages", "app", "matrix"},
}
# Folders whose every file keeps the size rules besides the C++ of src/ and include/ (tests/ need not).
SCRIPT_FOLDERS = ("python", "worker", "scripts", "bench")
CONTROL = re.compile(r"^(?:else\s+)?(?:if|for|while|switch|catch)\b")
SCOPE = re.compile(r"^(?:template\s*<.*>\s*)?(?:namespace|struct|class|enum|union|extern)\b", re.S)
RETURN_TYPE = r"->\s*[\w:<>,\s*&]+"
LAMBDA = re.compile(r"\[[^\[\]]*\]\s*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*(?:mutable\s*|noexcept\s*|" + RETURN_TYPE +
                    r")*$")
FUNCTION = re.compile(r"\)\s*(?:const\s*|noexcept(?:\([^()]*\))?\s*|override\s*|final\s*|&&?\s*|" + RETURN_TYPE + r")*$")
INITIALIZER_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:\s*[\w:]+")  # `Folder(int fd) : fd_...`
NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*',
                      re.S | re.M)


def blank_comments_and_literals(text):
    """`text` with its comments, string and character literals and preprocessor lines blanked, newlines kept."""
    return NOT_CODE.sub(lambda found: re.sub(r"[^\n]", " ", found.group(0)), text)


def brace_kind(head):
    """What a `{` after `head` (the code since the last `;`, `{` or `}`) opens: "function" (a function,
    method or lambda body), "scope" (namespace, class, enum), "member" (a constructor's braced member
    initializer, `: fd_{fd}`, after which the signature goes on) or "other" (a block, an initializer)."""
    head = " ".join(head.split())
    if SCOPE.match(head):
        return "scope"
    if LAMBDA.search(head):
        return "function"
    if CONTROL.match(head) or head.startswith(("=", "return")):
        return "other"
    if INITIALIZER_LIST.search(head):
        return "member" if re.search(r"[\w>]$", head) else "function"
    if FUNCTION.search(head):
        return "function"
    return "other"


def function_spans(text):
    """(signature, first line, last line) of every function body of C++ source `text` (0-based lines of its
    `{` and its `}`): functions and methods however their signature wraps, methods in class bodies, lambdas."""
    code = blank_comments_and_literals(text)
    spans, open_braces = [], []  # open_braces: (kind, head, offset of the `{`)
    head_start, parentheses = 0, 0
    for offset, char in enumerate(code):
        if char == "(":
            parentheses += 1
        elif char == ")":
            parentheses = max(0, parentheses - 1)
        elif char == ";" and parentheses == 0:
            head_start = offset + 1
        elif char == "{":
            head = code[head_start:offset]
            kind = brace_kind(head)
            open_braces.append((kind, head, offset))
            if kind != "member":
                head_start = offset + 1
        elif char == "}" and open_braces:
            kind, head, opened = open_braces.pop()
            if kind == "function":
                spans.append((" ".join(head.split()), code.count("\n", 0, opened), code.count("\n", 0, offset)))
            if kind != "member":  # after a member initializer the constructor's signature goes on
                head_start = offset + 1
    return spans


def python_function_spans(text):
    """(name, first line, last line) of every function and method of Python source `text`, as `ast` counts."""
    return sorted(((node.name, node.lineno - 1, node.end_lineno - 1) for node in ast.walk(ast.parse(text))
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), key=lambda span: span[1])


def size_findings(path, text, spans):
    lines = len(text.splitlines())
    found = [f"{path}: {lines} lines"] if lines > MAX_FILE_LINES else []
    for name, first, last in spans:
        if last - first + 1 > MAX_FUNCTION_LINES:
            found.append(f"{path}:{first + 1}: {name.split('(')[0][-80:]} has {last - first + 1} lines")
    return found


def test_no_source_file_or_function_is_too_long():
    too_long = []
    for path in sorted([*SRC.rglob("*.cc"), *SRC.rglob("*.h"), *(REPO / "include").rglob("*.h")]):
        text = path.read_text()
        too_long += size_findings(path.relative_to(REPO), text, function_spans(text))
    assert too_long == []


def script_files():
    for folder in SCRIPT_FOLDERS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".png", ".pyc"):
                yield path


def test_no_script_worker_package_or_bench_file_or_function_is_too_long():
    too_long = []
    for path in script_files():
        text = path.read_text()
        spans = python_function_spans(text) if path.suffix == ".py" else \
            function_spans(text) if path.suffix in (".cc", ".h") else []
        too_long += size_findings(path.relative_to(REPO), text, spans)
    assert too_long == []


def test_the_function_counter_sees_a_long_function():
    """Control: the counter is not blind (a 90-line function is found, a short one is not)."""
    body = ["int long_one(int x) {"] + ["  x += 1;"] * 88 + ["}", "", "int short_one() {", "  return 1;", "}"]
    spans = function_spans("\n".join(body))
    assert [(last - first + 1) for _, first, last in spans] == [90, 3]


def test_the_function_counter_sees_wrapped_signatures_methods_and_lambdas():
    """Control: a 90-line function whose signature wraps over three lines, a method defined in a class body, a
    lambda and constructors with member initializers (parenthesised, braced) are all found; blocks,
    initializers and comments are not."""
    wrapped = ["std::optional<std::string> Folder::wrapped_one(const std::string& relative,", "                      "
               "                          bool keep,", "                                                std::uint64_t limit) const {",
               "  if (keep) {", "    limit += 1;", "  }"] + ["  limit += 1;"] * 85 + ["}"]
    method = ["class Counter {", " public:", "  int next() noexcept {", "    return ++count_;", "  }",
              "  Counter(int start)", "      : count_(start) {", "    check();", "  }",
              "  explicit Counter(const Counter& other) : count_{other.count_}, step_{1} {", "    check();", "  }",
              " private:", "  int count_{0};", "  int step_{1};", "};"]
    lambda_ = ["void caller() {", "  const std::array<int, 2> table = {1, 2};", "  // not a function() {",
               "  auto add = [&](int x) -> int {", "    return x + table[0];", "  };", "}"]
    spans = function_spans("\n".join(wrapped + method + lambda_))
    found = {signature.split("(")[0]: last - first + 1 for signature, first, last in spans}
    assert found == {"std::optional<std::string> Folder::wrapped_one": 90, "public: int next": 3, "Counter": 3,
                     "explicit Counter": 3, "void caller": 7, "auto add = [&]": 3}
    assert size_findings("wrapped.cc", "\n".join(wrapped), function_spans("\n".join(wrapped))) == \
        ["wrapped.cc:3: std::optional<std::string> Folder::wrapped_one has 90 lines"]


def test_the_python_counter_sees_a_long_function_and_a_long_file():
    """Control: a 90-line Python method is found by its `ast` span, and a 401-line file by its length."""
    source = "class A:\n    def long_one(self):\n" + "        x = 1\n" * 89 + "\ndef short_one():\n    return 1\n"
    spans = python_function_spans(source)
    assert [(name, last - first + 1) for name, first, last in spans] == [("long_one", 90), ("short_one", 2)]
    assert size_findings("a.sh", "echo\n" * 401, []) == ["a.sh: 401 lines"]
    assert size_findings("a.sh", "echo\n" * 400, []) == []


# A repository path: a top folder, then a file with an extension or a folder with its closing `/`.
REPOSITORY_PATH = re.compile(r"(?<![\w./-])((?:doc|src|include|python|worker|scripts|bench|tests|fuzz|cmake|\.ci)/"
                             r"(?:[\w+-]+/)*(?:[\w+-]+\.\w+|))(?![\w/<*{$-])")
# A cited heading: `doc/architecture.md, "The layers"`, `(doc/architecture.md "The layers")`, also across the
# comment lines of a header.
CITED_HEADING = re.compile(r"((?:doc/[\w-]+|README|worker/PROTOCOL|PROTOCOL)\.md),?\s*\(?\"([^\"\n]{2,80})\"")
COMMENT_LINE_BREAK = re.compile(r"\n[ \t]*(?://+|#+|\*)?[ \t]*")


def documents_and_sources():
    """The files that name repository paths and cite headings: the docs, the layer READMEs and the product's
    sources (their comments)."""
    yield REPO / "README.md"
    yield from sorted((REPO / "doc").glob("*.md"))
    for folder in ("src", "include", "worker", "python"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in (".h", ".cc", ".md", ".py") and "__pycache__" not in path.parts:
                yield path


def missing_paths(citing, text):
    """The repository paths `text` (of file `citing`) names that exist neither from the repository's top, nor
    from src/ (a layer's file named as `cli/run_command.cc`), nor from the citing file's folder."""
    missing = []
    for found in REPOSITORY_PATH.finditer(text):
        named = found.group(1)
        if not any(base.joinpath(named).exists() for base in (REPO, SRC, citing.parent)):
            missing.append(f"{citing.relative_to(REPO)} names {named}")
    return missing


def headings(document):
    """The headings of a markdown document, without their `#` marks and backquotes."""
    return {line.lstrip("#").strip().replace("`", "") for line in document.read_text().splitlines()
            if re.match(r"#{1,6} ", line)}


def missing_headings(citing, text):
    """The headings `text` (of file `citing`) cites that are not headings of the cited document."""
    missing = []
    for found in CITED_HEADING.finditer(COMMENT_LINE_BREAK.sub(" ", text)):
        document = REPO / found.group(1)
        if found.group(1) == "PROTOCOL.md":
            document = REPO / "worker" / "PROTOCOL.md"
        heading = " ".join(found.group(2).replace("`", "").split())
        if not document.is_file() or heading not in headings(document):
            missing.append(f'{citing.relative_to(REPO)} cites {found.group(1)}, "{heading}"')
    return missing


def test_every_path_the_docs_and_sources_name_exists():
    missing = []
    for path in documents_and_sources():
        missing += missing_paths(path, path.read_text())
    assert missing == []


def test_every_cited_heading_exists():
    missing = []
    for path in documents_and_sources():
        missing += missing_headings(path, path.read_text())
    assert missing == []


def test_control_a_made_up_path_and_heading_are_found():
    """Control: the two checks are not blind (a missing path and a missing heading are found, over a comment
    line break too; existing ones are not)."""
    citing = SRC / "base" / "made_up.h"
    text = ("// See doc/privacy.md and doc/architecture.md, \"The layers\"; src/base/ and src/base/error.h;\n"
            "// doc/architecture.md, \"A section that\n// does not exist\" and (doc/architecture.md \"Signals\").\n")
    assert missing_paths(citing, text) == ["src/base/made_up.h names doc/privacy.md"]
    assert missing_headings(citing, text) == ['src/base/made_up.h cites doc/architecture.md, "A section that does not '
                                              'exist"']


def test_every_layer_says_what_it_holds():
    folders = sorted(p.name for p in SRC.iterdir() if p.is_dir())
    assert folders == sorted(LAYERS)
    for layer in LAYERS:
        readme = SRC / layer / "README.md"
        assert readme.is_file() and len(readme.read_text().strip()) > 80, layer


def files_a_readme_leaves_out(readme_text, file_names):
    """The files of a layer folder its README does not name: a file is named as `file.ext`, or a `.cc` beside
    its header in a row such as `` `name.h`, `.cc` ``."""
    named = set(re.findall(r"`([\w.]+)`", readme_text))
    return [name for name in sorted(file_names)
            if name not in named and not (name.endswith(".cc") and name[:-3] + ".h" in named)]


def test_every_layer_readme_lists_its_files():
    unlisted = []
    for layer in LAYERS:
        folder = SRC / layer
        names = [p.name for p in folder.iterdir() if p.is_file() and p.name != "README.md"]
        unlisted += [f"src/{layer}/{name}" for name in files_a_readme_leaves_out((folder / "README.md").read_text(), names)]
    assert unlisted == []


def test_control_a_file_the_readme_does_not_name_is_found():
    readme = "| `one.h`, `.cc` | one concept |\n| `two.cc` | another |"
    assert files_a_readme_leaves_out(readme, ["one.h", "one.cc", "two.cc", "three.h", "three.cc"]) == \
        ["three.cc", "three.h"]


def test_no_product_file_reads_a_test_variable_or_imports_a_test_module():
    found = []
    for root in ("src", "worker", "python"):
        for path in (REPO / root).rglob("*"):
            if path.suffix not in (".cc", ".h", ".py") or "__pycache__" in path.parts:
                continue
            text = path.read_text()
            if "NNX_TEST_" in text or re.search(r"^\s*(import|from)\s+(faults|tests)\b", text, re.M):
                found.append(str(path.relative_to(REPO)))
    assert found == []


def test_a_layer_includes_only_the_layers_before_it():
    wrong = []
    for layer in LAYERS:
        for path in sorted((SRC / layer).glob("*.[hc]*")):
            for included in re.findall(r'^#include "([a-z_]+)/', path.read_text(), re.M):
                if included != layer and included not in ALLOWED[layer]:
                    wrong.append(f"{path.relative_to(REPO)} includes {included}/")
    assert wrong == []


def import_cycles(imports: dict) -> list:
    """Every module of `imports` ({module: the modules of its folder it imports}) that reaches itself again,
    with the path it takes (["a", "b", "a"]), in module order."""
    cycles = []
    for start in sorted(imports):
        paths = [[start, name] for name in sorted(imports[start])]
        seen = set()
        while paths:
            path = paths.pop()
            if path[-1] == start:
                cycles.append(path)
                break
            if path[-1] not in seen:
                seen.add(path[-1])
                paths += [path + [name] for name in sorted(imports.get(path[-1], ()))]
    return cycles


def folder_imports(folder: Path) -> dict:
    """{module: the modules of `folder` it imports, at its top or inside a function} of a flat folder."""
    modules = {path.stem: path for path in folder.glob("*.py")}
    imports = {}
    for name, path in modules.items():
        named = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                named |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named.add(node.module.split(".")[0])
        imports[name] = named & set(modules) - {name}
    return imports


def test_no_script_worker_or_bench_module_imports_itself_through_others():
    cycles = [f"{folder}/: {' -> '.join(cycle)}" for folder in ("scripts", "worker", "bench")
              for cycle in import_cycles(folder_imports(REPO / folder))]
    assert cycles == []


def test_control_an_import_cycle_through_a_third_module_is_found():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == \
        [["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"]]
    assert import_cycles({"fetch": {"format", "make"}, "make": {"format"}, "format": set()}) == []


sys.path.insert(0, str(REPO / "scripts"))
import kind_dispatch_ratchet  # noqa: E402


def test_no_more_kind_dispatch_lines_than_the_ratchets_baseline(capsys):
    assert kind_dispatch_ratchet.main([]) == 0, capsys.readouterr()
    counted = kind_dispatch_ratchet.counted_lines(REPO)
    assert {name: len(lines) for name, lines in counted.items()} == kind_dispatch_ratchet.BASELINE, \
        "fewer lines than the baseline: lower BASELINE in scripts/kind_dispatch_ratchet.py to the new counts"


def test_control_a_new_kind_dispatch_line_is_refused_and_printed(tmp_path, capsys):
    for folder in ("src", "python"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    stage = tmp_path / "src" / "stages" / "load.cc"
    stage.write_text(stage.read_text() + "// if (record.module) in a comment is not counted\n"
                     "static bool told(const Record& record) { return record.module.has_value(); }\n")
    (tmp_path / "src" / "stages" / "module_new.cc").write_text("bool own(const Record& record) { return record.module; }\n")
    assert kind_dispatch_ratchet.main(["--root", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "src/stages/load.cc:" in out and "[record.module] static bool told" in out and "in a comment" not in out
    baseline = kind_dispatch_ratchet.BASELINE["record.module"]
    assert "module_new.cc" not in out and f"{baseline + 1} lines of 'record.module', more than the baseline {baseline}" in err
