"""The layout rules of doc/architecture.md hold for the tree as committed.

- every .cc file under src/ is at most 400 lines, and every function defined in one at most 80 lines
  (counted from the line that opens its body to the line that closes it);
- every layer folder under src/ says what it holds (a README.md);
- no file of the product (src/, worker/, python/) reads an NNX_TEST_* variable or imports a test module;
- a layer includes only the layers before it (the table of doc/architecture.md).
"""
import re
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
    "profile": {"base", "artifacts", "model"},
    "model": {"base"},
    "runtime": {"base"},
    "record": {"base", "artifacts", "profile", "model"},
    "worker": {"base", "runtime"},  # the worker inherits the runtime's telemetry switches
    "stages": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker"},
    "app": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker", "stages"},
    "matrix": {"base", "artifacts", "onnx_file", "profile", "model", "runtime", "record", "worker", "stages", "app"},
    "report": {"base"},
    "api": {"base", "artifacts", "record", "app"},  # include/nnx/conformance.h is included as <nnx/...>
    "cli": {"base", "artifacts", "profile", "model", "runtime", "record", "worker", "stages", "app", "matrix",
            "report"},
    "python": {"base", "artifacts", "profile", "model", "runtime", "record", "worker", "stages", "app", "matrix"},
}
SIGNATURE = re.compile(r"^[A-Za-z_][\w:<>,\s\*&~\[\]]*\([^;]*$")


def function_spans(lines):
    """(name line, first line, last line) of every function body that opens at column 0 of a .cc file."""
    spans = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.endswith("{") and not line.startswith((" ", "namespace", "struct", "class", "enum", "union",
                                                        "extern", "}", "#", "//")):
            head = i
            while head > 0 and not SIGNATURE.match(lines[head]) and lines[head - 1].strip() and \
                    not lines[head - 1].rstrip().endswith((";", "}", "{")):
                head -= 1
            if "(" in "".join(lines[head:i + 1]):
                depth = 0
                for j in range(i, len(lines)):
                    depth += lines[j].count("{") - lines[j].count("}")
                    if depth == 0:
                        spans.append((lines[head].strip(), i, j))
                        i = j
                        break
        i += 1
    return spans


def test_no_source_file_or_function_is_too_long():
    too_long = []
    for path in sorted(SRC.rglob("*.cc")):
        lines = path.read_text().splitlines()
        if len(lines) > MAX_FILE_LINES:
            too_long.append(f"{path.relative_to(REPO)}: {len(lines)} lines")
        for name, first, last in function_spans(lines):
            if last - first + 1 > MAX_FUNCTION_LINES:
                too_long.append(f"{path.relative_to(REPO)}:{first + 1}: {name} has {last - first + 1} lines")
    assert too_long == []


def test_the_function_counter_sees_a_long_function():
    """Control: the counter is not blind (a 90-line function is found, a short one is not)."""
    body = ["int long_one(int x) {"] + ["  x += 1;"] * 88 + ["}", "", "int short_one() {", "  return 1;", "}"]
    spans = function_spans(body)
    assert [(last - first + 1) for _, first, last in spans] == [90, 3]


def test_every_layer_says_what_it_holds():
    folders = sorted(p.name for p in SRC.iterdir() if p.is_dir())
    assert folders == sorted(LAYERS)
    for layer in LAYERS:
        readme = SRC / layer / "README.md"
        assert readme.is_file() and len(readme.read_text().strip()) > 80, layer


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
