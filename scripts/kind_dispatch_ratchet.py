#!/usr/bin/env python3
"""The model-kind ratchet (issue "One pipeline for every model kind"): counts the lines outside the kinds'
own files that tell a feed-forward record or profile from a module's, and fails when there are more than
the committed baseline, printing each line. Run by `make test` (tests/e2e/test_layout.py).

What is counted, comments and string literals left out:
- the nine old ways of telling the kind, each on its own (WAYS): `is_module()`, `record.module`,
  `context.model == nullptr` (or `!=`, or `!context.model`), `is_module_record(`, `DocumentKind::module_record`,
  `is_module_profile_object`, Python's `is_module_profile_json`, the validator's `bool module` (and the
  record reader's), `build_manifest`'s `stored_tensors`; in src/ (C++) and, for the Python way, python/nnx/;
- branches on a kind told that way (BRANCHES): a condition, an argument or a choice over a variable named
  `module` (`if (module)`, `module ? a : b`, `f(x, module)`), and a comparison with the module record's format
  id (`== kModuleFormat`, `is_text(kModuleFormat)`).
A kind's own files are those named after it (a file name holding `module` or `feedfwd`): what they say is
that kind's business. Everything else is shared code, where each such line is a place a new kind must be
added by hand, unchecked by the compiler.

The goal: at most 10 lines, each a `switch` (or std::visit) over one closed kind enum that the compiler
checks (no `default:`), and none of the nine old ways left (each of WAYS at 0). Lower BASELINE as the count
falls; it may never rise.

    python3 scripts/kind_dispatch_ratchet.py [--root ROOT] [--list]
"""
import argparse
import re
import sys
from pathlib import Path

# (name, pattern) of each old way of telling the kind.
WAYS = [
    ("is_module()", r"\bis_module\(\)"),
    ("record.module", r"\brecord\.module\b"),
    ("context.model == nullptr", r"context\.model\s*[!=]=\s*nullptr|!\s*context\.model\b"),
    ("is_module_record(", r"\bis_module_record\("),
    ("DocumentKind::module_record", r"\bDocumentKind::module_record\b"),
    ("is_module_profile_object", r"\bis_module_profile_object\b"),
    ("is_module_profile_json (Python)", r"\bis_module_profile_json\b"),
    ("the validator's bool module", r"\bbool\s+module\b"),
    ("build_manifest's stored_tensors", r"\bstored_tensors\b"),
]
BRANCHES = [
    ("a branch on a `module` variable",
     r"(\bif\s*\(\s*!?\s*module\b|[(,]\s*!?\s*module\s*[),]|(&&|\|\|)\s*!?\s*module\b)(?!\s*(->|\.))"
     r"|\bmodule\s*(\?|&&|\|\|)"),
    ("the module format id compared", r"[!=]=\s*kModuleFormat\b|\bkModuleFormat\s*[!=]=|is_text\(\s*kModuleFormat\s*\)"),
]
# Today's counts (the lines this script lists at the commit that added it); a later commit may only lower them.
BASELINE = {
    "is_module()": 0,
    "record.module": 0,
    "context.model == nullptr": 0,
    "is_module_record(": 0,
    "DocumentKind::module_record": 0,
    "is_module_profile_object": 0,
    "is_module_profile_json (Python)": 0,
    "the validator's bool module": 0,
    "build_manifest's stored_tensors": 0,
    "a branch on a `module` variable": 0,
    "the module format id compared": 0,
}   # 58 lines in 22 shared files at the commit that added it (21 of src/, 1 of python/nnx/); lowered since
GOAL_LINES = 10
PYTHON_WAY = "is_module_profile_json (Python)"
C_NOISE = re.compile(r'//.*$|"(?:\\.|[^"\\])*"')
PY_NOISE = re.compile(r'#.*$|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


def own_file(path: Path) -> bool:
    """Whether `path` is a kind's own file: its name says which kind it is for."""
    return "module" in path.name or "feedfwd" in path.name


def shared_files(root: Path):
    """(path, is Python) of every shared file: src/'s C++ and python/nnx's Python, a kind's own files left out."""
    for path in sorted([*(root / "src").rglob("*.cc"), *(root / "src").rglob("*.h")]):
        if not own_file(path):
            yield path, False
    for path in sorted((root / "python" / "nnx").glob("*.py")):
        if not own_file(path):
            yield path, True


def counted_lines(root: Path) -> dict:
    """{what: [(repository path, line number, the line)]} for every way and branch, in file order."""
    found = {name: [] for name, _ in WAYS + BRANCHES}
    for path, python in shared_files(root):
        in_block_comment = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line
            if not python:
                if in_block_comment or code.lstrip().startswith("/*"):
                    in_block_comment = "*/" not in code
                    continue
            code = (PY_NOISE if python else C_NOISE).sub("", code)
            for name, pattern in WAYS + BRANCHES:
                if (name == PYTHON_WAY) == python and re.search(pattern, code):
                    found[name].append((path.relative_to(root).as_posix(), number, line.strip()))
                    break   # one line counts once, under the first way it shows
    return found


def over_baseline(found: dict) -> list:
    """Every way or branch counted more often than its baseline: [(name, count, baseline)]."""
    return [(name, len(lines), BASELINE.get(name, 0)) for name, lines in found.items()
            if len(lines) > BASELINE.get(name, 0)]


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--list", action="store_true", help="print every counted line, not only on failure")
    args = parser.parse_args(argv)
    found = counted_lines(args.root)
    total = sum(len(lines) for lines in found.values())
    files = len({path for lines in found.values() for path, _, _ in lines})
    worse = over_baseline(found)
    for name, lines in found.items():
        if args.list or any(name == w[0] for w in worse):
            for path, number, text in lines:
                print(f"{path}:{number}: [{name}] {text}")
    for name, count, baseline in worse:
        print(f"kind dispatch ratchet: {count} lines of {name!r}, more than the baseline {baseline}: tell the kind "
              f"once, in a switch over the kind enum, rather than again here", file=sys.stderr)
    print(f"kind dispatch: {total} lines in {files} shared files (baseline {sum(BASELINE.values())}; "
          f"goal at most {GOAL_LINES}, each a checked switch, and none of the nine old ways)")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
