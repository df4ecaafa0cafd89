"""The human forms of the evidence (doc/cli.md, "Looking at the evidence"), from real runs.

A real run of both tested profiles, a real failing run (the stand-in worker's shift-outputs fault:
model.onnx's logits + 1e-3, so parity fails with a mismatch in the real ONNX Runtime) and a run whose
exporter raises (nothing after export runs) write their HTML, Markdown and JUnit renderings through run's
own flags. The pages open with what was compared with what, show numbers at 3 significant digits (the
exact value in the HTML's title) and what never ran as "not run"; a matrix page fits a 700 px viewport. The HTML page is opened in a real headless Chromium
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
    """The record writer's text of a number (Python's repr, as json.dumps writes it): JUnit's, and the HTML's
    hover title."""
    return "null" if value is None else json.dumps(value)


def shown(value):
    """A number as the pages show it: a float at 3 significant digits, anything else as the record writes it."""
    return format(value, ".3g") if isinstance(value, float) else float_text(value)


def hover(value):
    """The title the HTML puts on a number: its exact text, when the page shows it shortened."""
    return None if shown(value) == float_text(value) else float_text(value)


def opening_sentence(records):
    """What the pages open with for the tested profiles (one runtime, reference, model and tolerance; each
    profile its own exporter and opset), spelled from the records' own fields."""
    first = records[0]
    for key in ("runtime", "config", "tolerances", "dtype"):
        assert all(r[key] == first[key] for r in records), key
    assert all(r["versions"]["torch"] == first["versions"]["torch"] for r in records)
    runtime, config, tolerances = first["runtime"], first["config"], first["tolerances"]
    widths = "→".join(str(w) for w in [config["input_dim"], *config["hidden_dims"], config["output_dim"]])
    exporters = " and ".join(f"{r['exporter']['name']} at opset {r['opset']['requested']} ({r['profile']})"
                             for r in records)
    return (f"ONNX Runtime {runtime['version']} ({runtime['provider']}) was compared with PyTorch "
            f"{first['versions']['torch']} in eval mode on {config['net']} {widths} ({config['activation']}, "
            f"{first['dtype']}) exported by {exporters}, within atol {shown(tolerances['atol'])} and rtol "
            f"{shown(tolerances['rtol'])}.")


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


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A real run whose export fails (the stand-in worker's exporter raises): the later stages and every
    case did not run."""
    folder = tmp_path_factory.mktemp("stopped")
    done, report = render_run(folder, "--profile", TORCHSCRIPT, env=fault_env("exporter-raises"))
    assert done.returncode == 11, done.stderr
    (record,) = report["profiles"]
    assert all(c["outcome"] is None and not c["passed"] for c in record["input_cases"])
    return folder, report


def page_facts(page):
    return page.evaluate(textwrap.dedent("""
        (() => {
          const text = e => e ? e.textContent : null;
          const title = e => e && e.querySelector('[title]') ? e.querySelector('[title]').title : null;
          const colour = e => getComputedStyle(e).backgroundColor;
          return [...document.querySelectorAll('section.profile')].map(s => ({
            profile: s.dataset.profile, status: s.dataset.status,
            stages: Object.fromEntries([...s.querySelectorAll('li.stage')].map(l => [l.dataset.stage, l.dataset.status])),
            stage_labels: [...s.querySelectorAll('li.stage')].map(l => [l.textContent, colour(l)]),
            failures: [...s.querySelectorAll('div.failure')].map(d => ({stage: d.dataset.stage,
                                                                        text: d.textContent,
                                                                        visible: d.getBoundingClientRect().height > 0})),
            cases: Object.fromEntries([...s.querySelectorAll('tr.case')].map(r => [r.dataset.case, {
              abs: text(r.querySelector('td.abs')), rel: text(r.querySelector('td.rel')),
              margin: text(r.querySelector('td.margin')), failed: r.classList.contains('case-failed'),
              titles: ['td.abs', 'td.rel', 'td.margin'].map(q => title(r.querySelector(q))),
              outcome: text(r.querySelector('td.outcome')),
              badges: [...r.querySelectorAll('.badge')].map(b => [b.textContent, colour(b)]),
              not_run: r.classList.contains('case-not-run'),
              bar: !!r.querySelector('svg.margin-bar')}])),
            hashes: [...s.querySelectorAll('td.hash')].map(td => td.textContent),
          }));
        })()"""))


def assert_page_holds_record(facts, record):
    (section,) = [s for s in facts if s["profile"] == record["profile"]]
    assert section["status"] == record["status"]
    assert section["stages"] == {stage: record["stages"][stage]["status"] for stage in STAGES}
    for case in record["input_cases"]:
        row = section["cases"][case["name"]]
        assert row["abs"] == shown(case["max_abs_error"]) and row["titles"][0] == hover(case["max_abs_error"])
        assert row["rel"] == shown(case["max_rel_error"]) and row["titles"][1] == hover(case["max_rel_error"])
        never_compared = case["outcome"] is None and case["failure"] is None
        assert row["failed"] == (not case["passed"] and not never_compared)
        assert row["not_run"] == never_compared
    detail = record["stages"]["parity"]["detail"] or {}
    margins = {t["case"]: t["margin"] for t in detail.get("triangulation", [])}
    for name, margin in margins.items():
        assert section["cases"][name]["margin"] == shown(margin)
        assert section["cases"][name]["titles"][2] == hover(margin)
        assert section["cases"][name]["bar"]
    assert section["hashes"] == [f["sha256"] for f in record["artifacts"]["files"]]
    return section


def test_the_page_of_a_real_run_renders_offline_with_every_profile_stage_and_case_error(passing):
    folder, report = passing
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        facts = page_facts(page)
        # The page opens with what was compared with what, taken from the records' own fields.
        assert page.evaluate("document.querySelector('h1').nextElementSibling.textContent") == \
            opening_sentence(report["profiles"])
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
    cause, _, detail = parity["text"].partition("\n\n")  # the localisation's cause, then the detail
    assert cause.startswith("cause: ONNX Runtime first departs from PyTorch at Add node")
    assert json.loads(detail) == record["stages"]["parity"]["detail"]
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
    assert text.split("\n\n")[1] == opening_sentence(report["profiles"]).replace("_", "\\_")  # right under the heading
    folder, report = mismatch
    (record,) = report["profiles"]
    text = (folder / "r.md").read_text()
    summary = text.split("**Failures**")[0]
    (row,) = [line for line in summary.splitlines() if line.startswith(f"| `{TORCHSCRIPT}` |")]
    assert "❌ failed | mismatch |" in row
    assert "**Failures**" in text
    for case in record["input_cases"]:
        if not case["passed"]:
            assert f"| case {case['name']} | mismatch | max abs error {shown(case['max_abs_error'])}" in text


def test_report_verb_renders_a_written_report_as_run_did(passing, tmp_path):
    folder, _ = passing
    done = run_cli("report", folder / "report.json", "--html", tmp_path / "r.html", "--markdown", tmp_path / "r.md",
                   "--junit", tmp_path / "r.xml")
    assert done.returncode == 0, done.stderr
    for name in ("r.html", "r.md", "r.xml"):
        assert (tmp_path / name).read_bytes() == (folder / name).read_bytes()
    stdout = run_cli("report", folder / "report.json")
    assert stdout.returncode == 0 and stdout.stdout == (folder / "r.md").read_text()


def test_cases_that_never_ran_are_not_run_in_every_form_never_failed(stopped):
    folder, report = stopped
    (record,) = report["profiles"]
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        section = assert_page_holds_record(page_facts(page), record)
    grey = "rgb(158, 158, 158)"
    assert section["stage_labels"][2:] == [[f"{stage}: not run", grey] for stage in STAGES[2:]]
    for case in record["input_cases"]:
        row = section["cases"][case["name"]]
        assert row["outcome"] == "not run" and row["badges"] == [["not run", grey]], row
    text = (folder / "r.md").read_text()
    (row,) = [line for line in text.split("**Failures**")[0].splitlines() if line.startswith(f"| `{TORCHSCRIPT}` |")]
    assert row.count("⚪ not run") == 3 and "| case " not in text
    assert "was to be compared with" in text.split("\n\n")[1]
    (suite,) = read_junit(folder / "r.xml")
    cases = suite["cases"][len(STAGES):]
    assert [c["results"] for c in cases] == [[{"kind": "Skipped", "type": None, "message": "not run", "text": None}]
                                            ] * len(record["input_cases"])
    assert suite["failures"] == 1  # the export stage, and no case


def test_a_matrix_renders_a_heatmap_that_fits_700_pixels_with_whole_badges(passing, mismatch, stopped, tmp_path):
    # A runtime matrix (nnx.runtime-matrix/1) assembled from the real reports' records.
    runtimes = [("1.30.0", "passed", passing[1]["profiles"][:1]), ("9.9.9", "failed", mismatch[1]["profiles"]),
                ("9.9.10", "failed", stopped[1]["profiles"])]
    matrix = {"format": "nnx.runtime-matrix/1", "status": "failed", "report": {"path": "r.json", "sha256": "0" * 64},
              "runtimes": [{"version": v, "library_sha256": v[0] * 64, "status": status, "records": records}
                           for v, status, records in runtimes], "drift": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    done = run_cli("report", path, "--html", tmp_path / "m.html", "--junit", tmp_path / "m.xml", "--markdown",
                   tmp_path / "m.md")
    assert done.returncode == 0, done.stderr
    with HeadlessChromium(width=700) as page:
        page.open_page(tmp_path / "m.html")
        assert page.evaluate("window.innerWidth") == 700
        cells = page.evaluate("[...document.querySelectorAll('table.heat tbody tr')].map(r => [r.dataset.case, "
                              "[...r.querySelectorAll('td.cell')].map(c => [c.dataset.runtime, c.textContent])])")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), \
            page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        # Each badge is one line (its text lays out in one box) and may never wrap.
        lines = page.evaluate("[...document.querySelectorAll('.badge')].map(b => { const r = document.createRange();"
                              " r.selectNodeContents(b); return [b.textContent, r.getClientRects().length, "
                              "getComputedStyle(b).whiteSpace]; })")
        assert page.console_errors() == [] and page.requests() == [page.url]
    assert {"failed", "not run", "passed"} <= {text for text, _, _ in lines}
    assert [badge for badge in lines if badge[1:] != [1, "nowrap"]] == []
    record_of = {v: records[0] for v, _, records in runtimes}
    assert [name for name, _ in cells] == [c["name"] for c in record_of["1.30.0"]["input_cases"]]
    for name, row in cells:
        assert [version for version, _ in row] == [v for v, _, _ in runtimes]
        for version, text in row:
            record = record_of[version]
            (case,) = [c for c in record["input_cases"] if c["name"] == name]
            detail = record["stages"]["parity"]["detail"] or {}
            margins = {t["case"]: t["margin"] for t in detail.get("triangulation", [])}
            if name in margins:
                assert text == shown(margins[name])
            elif case["outcome"] is None:
                assert text == "not run"
            else:
                assert text == (case["outcome"] if case["passed"] else "failed")
    suites = read_junit(tmp_path / "m.xml")
    assert [s["name"] for s in suites] == [f"onnxruntime-{v}.{TORCHSCRIPT}" for v, _, _ in runtimes]
    bad = mismatch[1]["profiles"][0]
    assert [s["failures"] for s in suites] == [0, 1 + sum(not c["passed"] for c in bad["input_cases"]), 1]
    assert "| 9.9.9 | `999999999999` | ❌ failed |" in (tmp_path / "m.md").read_text()


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
