"""The human forms of the evidence (doc/cli.md, "Looking at the evidence"), from real runs.

A real run of both tested profiles and a real failing run (the stand-in worker's shift-outputs fault:
model.onnx's logits + 1e-3, so parity fails with a mismatch in the real ONNX Runtime) write their HTML,
Markdown and JUnit renderings through run's own flags. The HTML page is opened in a real headless Chromium
(Debian's chromium, DevTools protocol over a pipe: tests/e2e/headless_chromium.py); the JUnit XML is read
by junitparser (Debian's python3-junitparser, under the system Python that package belongs to). The
passing page's screenshot (its top, down to the first profile's
artifacts) is kept as <build>/report-screenshot.png (doc/cli.md shows it as doc/report-screenshot.png).
"""
import json
import shutil
import subprocess
import textwrap

import pytest

from conftest import BUILD, REPO, fault_env, run_cli
from headless_chromium import HeadlessChromium, png_colours

TORCHSCRIPT = "feedfwd-fp32-torchscript"
STAGES = ("dependencies", "export", "check", "load", "parity")


def float_text(value):
    """The record writer's text of a number (Python's repr, as json.dumps writes it)."""
    return "null" if value is None else json.dumps(value)


def render_run(folder, *extra, env=None):
    done = run_cli("run", "--output", folder / "report.json", "--html", folder / "r.html", "--markdown",
                   folder / "r.md", "--junit", folder / "r.xml", *extra, env=env)
    report = json.loads((folder / "report.json").read_text())
    return done, report


@pytest.fixture(scope="module")
def passing(tmp_path_factory):
    folder = tmp_path_factory.mktemp("passing")
    done, report = render_run(folder)
    assert done.returncode == 0, done.stderr
    return folder, report


@pytest.fixture(scope="module")
def mismatch(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mismatch")
    done, report = render_run(folder, "--profile", TORCHSCRIPT, env=fault_env("shift-outputs"))
    assert done.returncode == 16, done.stderr
    (record,) = report["profiles"]
    assert record["stages"]["parity"]["failure"] == "mismatch"
    return folder, report


def page_facts(page):
    return page.evaluate(textwrap.dedent("""
        (() => {
          const text = e => e ? e.textContent : null;
          return [...document.querySelectorAll('section.profile')].map(s => ({
            profile: s.dataset.profile, status: s.dataset.status,
            stages: Object.fromEntries([...s.querySelectorAll('li.stage')].map(l => [l.dataset.stage, l.dataset.status])),
            failures: [...s.querySelectorAll('div.failure')].map(d => ({stage: d.dataset.stage,
                                                                        text: d.textContent,
                                                                        visible: d.getBoundingClientRect().height > 0})),
            cases: Object.fromEntries([...s.querySelectorAll('tr.case')].map(r => [r.dataset.case, {
              abs: text(r.querySelector('td.abs')), rel: text(r.querySelector('td.rel')),
              margin: text(r.querySelector('td.margin')), failed: r.classList.contains('case-failed'),
              bar: !!r.querySelector('svg.margin-bar')}])),
            hashes: [...s.querySelectorAll('td.hash')].map(td => td.textContent),
          }));
        })()"""))


def assert_page_holds_record(facts, record):
    (section,) = [s for s in facts if s["profile"] == record["profile"]]
    assert section["status"] == record["status"]
    assert section["stages"] == {stage: record["stages"][stage]["status"] for stage in STAGES}
    for case in record["input_cases"]:
        shown = section["cases"][case["name"]]
        assert shown["abs"] == float_text(case["max_abs_error"])
        assert shown["rel"] == float_text(case["max_rel_error"])
        assert shown["failed"] == (not case["passed"])
    margins = {t["case"]: t["margin"] for t in record["stages"]["parity"]["detail"]["triangulation"]}
    for name, margin in margins.items():
        assert section["cases"][name]["margin"] == float_text(margin)
        assert section["cases"][name]["bar"]
    assert section["hashes"] == [f["sha256"] for f in record["artifacts"]["files"]]
    return section


def test_the_page_of_a_real_run_renders_offline_with_every_profile_stage_and_case_error(passing):
    folder, report = passing
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        facts = page_facts(page)
        assert [s["profile"] for s in facts] == [r["profile"] for r in report["profiles"]]
        for record in report["profiles"]:
            section = assert_page_holds_record(facts, record)
            assert section["failures"] == []
        assert page.console_errors() == []
        assert page.requests() == [page.url], "the page fetched something besides itself"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "scrolls sideways"
        # Down to the first profile's runtime table: the versions below it name this machine's paths.
        png = page.screenshot(height=page.evaluate(
            "Math.ceil([...document.querySelectorAll('h3')].find(h => h.textContent == 'Runtime')"
            ".getBoundingClientRect().top)"))
    colours = png_colours(png)
    assert colours > 50, f"the screenshot is blank ({colours} colours)"
    (BUILD / "report-screenshot.png").write_bytes(png)


def test_the_page_checker_sees_a_console_error_and_a_network_request(tmp_path):
    # The two checks above can fail: a page with a script error and an image to fetch trips both.
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><img src='http://127.0.0.1:9/x.png'>"
                   "<script>console.error('boom')</script></body></html>")
    with HeadlessChromium() as page:
        page.open_page(bad)
        assert page.console_errors()
        assert any(url.startswith("http://127.0.0.1:9/") for url in page.requests())


def test_a_mismatch_is_visible_in_the_page(mismatch):
    folder, report = mismatch
    (record,) = report["profiles"]
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        section = assert_page_holds_record(page_facts(page), record)
        assert page.console_errors() == []
        assert page.requests() == [page.url]
    (failure,) = section["failures"]
    assert failure["stage"] == "parity" and failure["visible"]
    assert "mismatch" in failure["text"] and "runtime-or-graph" in failure["text"]
    failed = [c["name"] for c in record["input_cases"] if not c["passed"]]
    assert failed and all(section["cases"][name]["failed"] for name in failed)


JUNIT_READER = textwrap.dedent("""
    import json, sys
    from junitparser import JUnitXml, Failure, Skipped
    xml = JUnitXml.fromfile(sys.argv[1])
    suites = []
    for suite in xml:
        cases = []
        for case in suite:
            results = [{"kind": type(r).__name__, "type": r.type, "message": r.message, "text": r.text}
                       for r in case.result]
            cases.append({"classname": case.classname, "name": case.name, "results": results})
        suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "cases": cases})
    print(json.dumps(suites))
""")


def read_junit(path):
    """JUnit XML as junitparser (Debian python3-junitparser, system Python) reads it."""
    done = subprocess.run(["/usr/bin/python3", "-c", JUNIT_READER, str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_junit_of_a_real_run_has_a_suite_per_profile_and_a_case_per_stage_and_input_case(passing):
    folder, report = passing
    suites = read_junit(folder / "r.xml")
    assert [s["name"] for s in suites] == [r["profile"] for r in report["profiles"]]
    for suite, record in zip(suites, report["profiles"]):
        names = [c["name"] for c in suite["cases"]]
        assert names == list(STAGES) + [c["name"] for c in record["input_cases"]]
        assert suite["tests"] == len(names) and suite["failures"] == 0
        assert all(c["results"] == [] for c in suite["cases"])


def test_a_mismatch_is_a_junit_failure_with_its_class_and_detail(mismatch):
    folder, report = mismatch
    (record,) = report["profiles"]
    (suite,) = read_junit(folder / "r.xml")
    by_name = {c["name"]: c for c in suite["cases"]}
    (parity,) = by_name["parity"]["results"]
    assert parity["kind"] == "Failure" and parity["type"] == "mismatch"
    assert json.loads(parity["text"]) == record["stages"]["parity"]["detail"]
    failed = [c for c in record["input_cases"] if not c["passed"]]
    for case in failed:
        (result,) = by_name[case["name"]]["results"]
        assert result["type"] == case["failure"] == "mismatch"
        assert float_text(case["max_abs_error"]) in result["text"]
    assert suite["failures"] == 1 + len(failed)


def test_markdown_summarises_each_profile_and_lists_a_mismatch(passing, mismatch):
    folder, report = passing
    text = (folder / "r.md").read_text()
    for record in report["profiles"]:
        (row,) = [line for line in text.splitlines() if line.startswith(f"| `{record['profile']}` |")]
        assert row.count("✅ passed") == 6
    assert "Failures" not in text
    folder, report = mismatch
    (record,) = report["profiles"]
    text = (folder / "r.md").read_text()
    summary = text.split("**Failures**")[0]
    (row,) = [line for line in summary.splitlines() if line.startswith(f"| `{TORCHSCRIPT}` |")]
    assert "❌ failed | mismatch |" in row
    assert "**Failures**" in text
    for case in record["input_cases"]:
        if not case["passed"]:
            assert f"| case {case['name']} | mismatch | max abs error {float_text(case['max_abs_error'])}" in text


def test_report_verb_renders_a_written_report_as_run_did(passing, tmp_path):
    folder, _ = passing
    done = run_cli("report", folder / "report.json", "--html", tmp_path / "r.html", "--markdown", tmp_path / "r.md",
                   "--junit", tmp_path / "r.xml")
    assert done.returncode == 0, done.stderr
    for name in ("r.html", "r.md", "r.xml"):
        assert (tmp_path / name).read_bytes() == (folder / name).read_bytes()
    stdout = run_cli("report", folder / "report.json")
    assert stdout.returncode == 0 and stdout.stdout == (folder / "r.md").read_text()


def test_a_matrix_renders_a_heatmap_of_every_runtime_and_case(passing, mismatch, tmp_path):
    # A runtime matrix (nnx.runtime-matrix/1) assembled from the two real reports' records.
    _, good = passing
    _, bad = mismatch
    matrix = {"format": "nnx.runtime-matrix/1", "report": {"path": "report.json", "sha256": "0" * 64},
              "runtimes": [{"version": "1.30.0", "library_sha256": "a" * 64, "status": "passed",
                            "records": good["profiles"][:1]},
                           {"version": "9.9.9", "library_sha256": "b" * 64, "status": "failed",
                            "records": bad["profiles"]}], "drift": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    done = run_cli("report", path, "--html", tmp_path / "m.html", "--junit", tmp_path / "m.xml", "--markdown",
                   tmp_path / "m.md")
    assert done.returncode == 0, done.stderr
    with HeadlessChromium() as page:
        page.open_page(tmp_path / "m.html")
        cells = page.evaluate("[...document.querySelectorAll('table.heat tbody tr')].map(r => "
                              "[r.dataset.runtime, [...r.querySelectorAll('td.cell')].map(c => c.textContent)])")
        assert page.console_errors() == [] and page.requests() == [page.url]
    for (version, texts), runtime in zip(cells, matrix["runtimes"]):
        (record,) = runtime["records"]
        assert version == runtime["version"]
        margins = {t["case"]: t["margin"] for t in record["stages"]["parity"]["detail"]["triangulation"]}
        for case, text in zip(record["input_cases"], texts):
            assert text == (float_text(margins[case["name"]]) if case["name"] in margins else case["outcome"])
    suites = read_junit(tmp_path / "m.xml")
    assert [s["name"] for s in suites] == ["onnxruntime-1.30.0." + TORCHSCRIPT, "onnxruntime-9.9.9." + TORCHSCRIPT]
    assert [s["failures"] for s in suites] == [0, 1 + sum(not c["passed"] for c in bad["profiles"][0]["input_cases"])]
    assert "| 9.9.9 | `bbbbbbbbbbbb` | ❌ failed |" in (tmp_path / "m.md").read_text()


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "the document is not a JSON object"),
    ('{"profiles": 3}', "the report's \"profiles\" is not a list"),
    ('{"format": "nnx.runtime-matrix/1", "runtimes": [{"version": "1"}]}', "runtimes[0] has no \"records\""),
    ('{"hello": 1}', "neither a report, a record nor a runtime matrix"),
])
def test_report_refuses_what_is_not_a_document_and_writes_nothing(tmp_path, text, message):
    path = tmp_path / "doc.json"
    path.write_text(text)
    done = run_cli("report", path, "--html", tmp_path / "r.html", "--markdown", tmp_path / "r.md",
                   "--junit", tmp_path / "r.xml")
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_execute_writes_the_renderings_of_what_it_executed(passing, tmp_path):
    folder, report = passing
    root = folder / "report-artifacts"
    done = run_cli("execute", folder / "report.json", root, "--output", tmp_path / "again.json",
                   "--markdown", tmp_path / "again.md", "--junit", tmp_path / "again.xml")
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "again.json").read_text())
    rendered = run_cli("report", tmp_path / "again.json")
    assert rendered.stdout == (tmp_path / "again.md").read_text()
    assert [s["name"] for s in read_junit(tmp_path / "again.xml")] == [r["profile"] for r in again["profiles"]]
    # one record in, one record rendered
    (tmp_path / "one.json").write_text(json.dumps(report["profiles"][1]))
    done = run_cli("execute", tmp_path / "one.json", root, "--html", tmp_path / "one.html")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "one.html").read_text()
    assert html.count('<section class="profile"') == 1 and report["profiles"][1]["profile"] in html
