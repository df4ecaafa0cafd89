"""A newcomer's path: README.md, its minute with the command line, its minute with Python, then the doc pages.

Every command the README shows (and every command the doc pages show with its output) is run as a newcomer
types it at the top of the checkout, in a temporary folder, by scripts/readme_samples.py; its output must be
the page's text, byte for byte after the script's placeholder rules. Every relative link of README.md and
doc/*.md must reach a file, and its anchor, when it has one, a heading of that file.
"""
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from conftest import BUILD, REPO, require_runtime

spec = importlib.util.spec_from_file_location("readme_samples", REPO / "scripts" / "readme_samples.py")
samples = importlib.util.module_from_spec(spec)
sys.modules["readme_samples"] = samples  # a dataclass finds its module there
spec.loader.exec_module(samples)

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
# What the README shows that no sample runs: the two commands (`make test` runs this test; `make
# conformance` is the CLI minute's run, bootstrapped).
SHOWN_NOT_RUN = [("sh", "make conformance")]


def pages():
    return [REPO / "README.md", *sorted((REPO / "doc").glob("*.md"))]


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(document: Path) -> set:
    found, seen = set(), {}
    text = re.sub(r"^```.*?^```", "", document.read_text(), flags=re.S | re.M)
    for line in text.splitlines():
        if re.match(r"#{1,6} ", line):
            anchor = github_anchor(line.lstrip("#"))
            found.add(anchor if anchor not in seen else f"{anchor}-{seen[anchor]}")
            seen[anchor] = seen.get(anchor, 0) + 1
    return found


def broken_links(page: Path, text: str) -> list:
    """The relative links of `text` (page `page`) that reach no file, or an anchor no heading has."""
    broken = []
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))  # code is no link
    for found in LINK.finditer(text):
        target = found.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        document = (page.parent / path).resolve() if path else page
        if not document.exists():
            broken.append(f"{page.name}: {target}: no such file")
        elif anchor and (document.suffix != ".md" or anchor not in anchors(document)):
            broken.append(f"{page.name}: {target}: no such heading")
    return broken


def outside_samples(text: str) -> list:
    """The fenced blocks of a page that are not inside a sample's markers: (language, text)."""
    bare = samples.MARKER.sub("", text)
    return [(found.group(1), found.group(2)) for found in FENCED.finditer(bare)]


def test_every_sample_of_the_readme_and_the_doc_pages_is_what_its_commands_print_now():
    require_runtime()
    if not (BUILD / "python" / "nnx" / "_core.so").exists() and not list((BUILD / "python" / "nnx").glob("_core*.so")):
        pytest.fail(f"{BUILD}/python/nnx has no extension: build the project")
    result = samples.regenerate(BUILD)
    assert samples.differences(result) == []
    shown = [name for page in samples.PAGES for name, _ in samples.samples_in(result[page][1])]
    readmes = ["cli-minute", "python-minute-code", "python-minute", "own-model-file", "own-model"]
    assert shown[:5] == readmes  # the README's first, in its order


def test_every_command_the_readme_shows_is_run_by_a_sample():
    text = (REPO / "README.md").read_text()
    not_run = outside_samples(text)
    assert len(not_run) == len(SHOWN_NOT_RUN), not_run
    for (language, block), (expected_language, needle) in zip(not_run, SHOWN_NOT_RUN):
        assert language == expected_language and needle in block, (language, block)
    assert samples.marker_problems({page: (REPO / page).read_text() for page in samples.PAGES}) == []
    for name, _ in samples.samples_in(text):
        sample = samples.SAMPLES[name]
        assert sample.commands or sample.show_file, name


def test_the_readme_links_every_page_of_the_newcomers_path():
    text = (REPO / "README.md").read_text()
    linked = {found.group(1).partition("#")[0] for found in LINK.finditer(text)}
    assert set(samples.PAGES[1:]) <= linked, set(samples.PAGES[1:]) - linked


def test_every_relative_link_of_the_readme_and_the_doc_pages_reaches_a_file_and_heading():
    broken = []
    for page in pages():
        broken += broken_links(page, page.read_text())
    assert broken == []


def test_control_a_broken_link_a_drifted_sample_and_an_unknown_sample_are_found():
    page = REPO / "doc" / "cli.md"
    text = ("[a](../README.md#exit-codes) [b](safety.md#time-and-memory-limits) [c](https://example.org/x)\n"
            "[d](missing.md) [e](../README.md#no-such-heading) [f](#looking-at-the-evidence) [g](#nowhere)\n")
    assert broken_links(page, text) == ["cli.md: missing.md: no such file", "cli.md: ../README.md#no-such-heading: "
                                        "no such heading", "cli.md: #nowhere: no such heading"]
    assert github_anchor("Another release: `execute --onnxruntime`") == "another-release-execute---onnxruntime"
    drifted = {"README.md": ("a\n<!-- sample: x -->\nold\n<!-- /sample -->\n", "a\n<!-- sample: x -->\nnew\n"
                                                                             "<!-- /sample -->\n")}
    assert len(samples.differences(drifted)) == 1 and "-old\n+new" in samples.differences(drifted)[0]
    unknown = {"README.md": "<!-- sample: made-up -->\n<!-- /sample -->\n"}
    assert "README.md: sample made-up is not defined in scripts/readme_samples.py" in samples.marker_problems(unknown)


def test_control_the_placeholder_rules_keep_a_runs_own_numbers():
    work, build = Path("/tmp/nnx-samples-abc"), BUILD
    rules = samples.placeholders(work, build)
    line = "report: /tmp/nnx-samples-abc/try/r.json held by pid 4242 after 1.25 s; max_abs_error=2.38e-07"
    expected = "report: try/r.json held by pid <pid> after <duration>; max_abs_error=2.38e-07"
    assert samples.stable(line, rules) == expected


def test_control_a_cpu_dependent_error_figure_is_set_aside_but_any_other_change_is_drift():
    line = "resnet18-dynamo: passed; level=executed; max_abs_error=1.9073486328125e-06; 6/6 input cases passed\n"
    other_cpu = {"README.md": (line, line.replace("1.9073486328125e-06", "1.7881393432617188e-06"))}
    assert samples.differences(other_cpu) == []
    for drift in (line.replace("passed;", "failed;", 1), line.replace("6/6", "5/6"),
                  line.replace("max_abs_error=1.9073486328125e-06", "max_abs_error=nan")):
        assert len(samples.differences({"README.md": (line, drift)})) == 1, drift

