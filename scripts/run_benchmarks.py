#!/usr/bin/env python3
"""Times nnx-conformance against what a user would write instead, in one run, and writes BENCHMARKS.md.

    make test                              # (or make build) — builds build/ with the bench programs
    .venv/bin/python scripts/run_benchmarks.py [--quick] [--output BENCHMARKS.md]

Everything is measured on this machine in this one run: whole commands (wall time of the process, imports
and start-up included; peak RSS from /usr/bin/time), the Google Benchmark programs of bench/ and the Python
baselines of bench/ (baseline_check.py, baseline_validate.py). The baselines need the onnxruntime Python
package, which the product does not use: it is installed (once, idempotently) into a separate venv
build/bench-venv that sees .venv's torch/onnx/numpy through a .pth file; .venv itself is never changed.
Work files go to build/bench-work (about 1.3 GiB while it runs, the 1 GiB verify folder removed at the end).

--quick skips the largest profiles (64 hidden layers, 2^24 weights) and the top of the scaling table.
--sections A,B runs a subset: `existing` (everything above) and the side-by-side sections against the
published original thekaveh-nnx 0.4.1 (bench/original_compare.py; its venv build/original-venv comes from
scripts/install_original.sh): original-run (full run of both tested profiles, the phase breakdown from
`run --timings`, critical path), original-scaling (1..16 custom torchscript profiles via `run --profile-file`),
original-inproc (validate_record / verify_artifacts per record, 10,000 records in one call), original-rss
(peak RSS of the whole process tree), matrix (bench/matrix_bench.py: a 5-release runtime matrix, --jobs 1 vs
--jobs 2), module (bench/module_bench.py: torchvision's resnet18 as a module profile under both exporters: run
against the exporter and reference alone, execute without Python against a Python re-check, peak RSS). A
subset writes BUILD/bench-work-subset.md unless --output is given.
Exit 0 when every target holds, 1 when one does not (the table says which and by how much), 2 on a setup
problem.

This script holds the command line, the order of the sections and the subsets; beside it,
scripts/benchmarks_sections.py measures the `existing` sections, scripts/benchmarks_markdown.py writes their
tables and scripts/benchmarks_support.py holds what they share (timing commands, formatting figures).
"""
import argparse
import json
import os
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import original_compare  # noqa: E402  (bench/: the side-by-side sections against the published original)
import python_loops  # noqa: E402  (bench/: the Python API in a loop, against the original)
import matrix_bench  # noqa: E402  (bench/: the runtime matrix, --jobs 1 vs --jobs 2)
import module_bench  # noqa: E402  (bench/: module profiles, resnet18 under both exporters)
# Beside this script: what the sections share, the sections' measurements and BENCHMARKS.md's text.
from benchmarks_support import TORCHSCRIPT, bench_python, loadavg, log, machine_text, timed  # noqa: E402
from benchmarks_sections import (measure_core, measure_execute, measure_full_runs,  # noqa: E402
                                 measure_largest, measure_scaling, measure_tested_report, measure_validate,
                                 measure_verify)
from benchmarks_markdown import (baseline_lines, core_lines, head_lines, largest_lines,  # noqa: E402
                                 original_report_lines, scaling_lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None, help="work folder (default BUILD/bench-work)")
    ap.add_argument("--output", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--quick", action="store_true", help="skip the largest profiles")
    ap.add_argument("--sections", default="all",
                    help="comma-separated subset to run quickly: existing (this script's own measurements), "
                         + ", ".join(original_compare.SECTIONS) + ", matrix, module; default all. A subset writes "
                         "BUILD/bench-work-subset.md unless --output is given, never BENCHMARKS.md")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work or os.path.join(build, "bench-work"))
    selected = parse_sections(args.sections)
    if "existing" not in selected:
        return original_only(args, build, work, selected)
    tools = {"cli": os.path.join(build, "nnx-conformance"), "run_profile": os.path.join(build, "nnx_run_profile"),
             "core_bench": os.path.join(build, "core_bench"), "forward_bench": os.path.join(build, "forward_bench")}
    missing = [p for p in tools.values() if not os.access(p, os.X_OK)]
    if missing:
        print(f"missing {', '.join(missing)}: run `make test` (or `make build`) first", file=sys.stderr)
        return 2
    if not os.access("/usr/bin/time", os.X_OK):
        log("no /usr/bin/time (Debian package `time`): peak RSS columns will read 0 MiB")
    bpy = bench_python(build)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    cli = tools["cli"]
    started = time.time()
    load_before = loadavg()
    results = {}  # target key -> dict
    sections = []

    report, artifacts, document, record_path = measure_tested_report(cli, env, work)
    measure_full_runs(cli, env, work, bpy, results, sections)
    figures = measure_execute(cli, bpy, record_path, artifacts, results)
    figures.update(measure_validate(cli, report, results))
    figures.update(measure_verify(cli, work, artifacts, document, record_path, results))
    large_rows = measure_largest(args, cli, env, work, tools, results)
    scale_rows = measure_scaling(args, cli, env, work, tools)
    core = measure_core(tools, report, artifacts, work)

    original_results, original_sections = run_original_sections(cli, build, work, selected, record_path, artifacts)
    loop_results, loop_sections = run_python_loops_section(build, work, selected)
    original_results.update(loop_results)
    original_sections += loop_sections + run_matrix_section(cli, work, selected) + run_module_section(cli, build, work, selected)

    elapsed = time.time() - started
    load_after = loadavg()

    lines, command = head_lines(args, elapsed, load_before, load_after, results, original_results, original_sections,
                                sections)
    lines = baseline_lines(lines, figures, core)
    lines = largest_lines(lines, large_rows)
    lines = scaling_lines(lines, scale_rows)
    lines = core_lines(lines, command, core)
    lines += kept_build_time_section(args.output)
    with open(args.output, "w") as f:
        f.write("\n".join(lines))
    log(f"wrote {args.output}")
    print()
    for key in ("execute", "validate", "verify", "forward", "rss", "engine_share"):
        if key in results:
            r = results[key]
            print(f"{'HOLDS' if r['ok'] else 'FAILS'}  {r['target']}: {r['value']}")
    for r in original_results.values():
        print(f"{'PASS' if r['ok'] else 'MISS'}  {r['target']}: {r['value']}")
    shutil.rmtree(os.path.join(work, "large"), ignore_errors=True)
    return 0 if all(r["ok"] for r in [*results.values(), *original_results.values()]) else 1




BUILD_TIME_HEADING = "## Build time"


def kept_build_time_section(path):
    """The existing page's "## Build time" section (to its end or the next "## "), kept as it is: it is measured
    by hand with the commands it names (whole builds from nothing, too long for this script), not here."""
    try:
        with open(path) as f:
            old = f.read().split("\n")
    except FileNotFoundError:
        return []
    if BUILD_TIME_HEADING not in old:
        return []
    start = old.index(BUILD_TIME_HEADING)
    end = next((i for i in range(start + 1, len(old)) if old[i].startswith("## ")), len(old))
    return ["", *old[start:end]]


# ------------------------------------------------------------------- the published original as baseline

def parse_sections(text):
    known = ["existing", *original_compare.SECTIONS, "python-loops", "matrix", "module"]
    chosen = known if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in known]
    if unknown:
        print(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        raise SystemExit(2)
    return chosen


def run_original_sections(cli, build, work, selected, record_path, artifacts):
    """Runs the selected original-* sections (bench/original_compare.py); a missing flag or venv stops the
    benchmark with exit 2 and says what is missing."""
    results, sections = {}, []
    calls = {
        "original-run": lambda: original_compare.original_run(cli, build, work),
        "original-scaling": lambda: original_compare.original_scaling(cli, build, work),
        "original-inproc": lambda: original_compare.original_inproc(build, record_path, artifacts),
        "original-rss": lambda: original_compare.original_rss(cli, build, work),
    }
    for name in selected:
        if name not in calls:
            continue
        log(f"{name}: {original_compare.SECTIONS[name]}")
        try:
            res, rows = calls[name]()
        except original_compare.SetupError as e:
            print(f"benchmark section {name}: {e}", file=sys.stderr)
            raise SystemExit(2)
        results.update(res)
        sections.append((f"Against the original thekaveh-nnx 0.4.1: {original_compare.SECTIONS[name]}", rows))
    return results, sections


def run_matrix_section(cli, work, selected):
    """The `matrix` section (bench/matrix_bench.py) as [(title, rows)] when selected; a setup problem exits 2."""
    if "matrix" not in selected:
        return []
    log(f"matrix: {matrix_bench.TITLE}")
    try:
        rows = matrix_bench.matrix_section(cli, work)
    except matrix_bench.SetupError as e:
        print(f"benchmark section matrix: {e}", file=sys.stderr)
        raise SystemExit(2)
    for row in rows[-2:]:
        log(row)
    return [(matrix_bench.TITLE, rows)]


def run_python_loops_section(build, work, selected):
    """The `python-loops` section (bench/python_loops.py) as (results, [(title, rows)]) when selected; a setup
    problem exits 2."""
    if "python-loops" not in selected:
        return {}, []
    log(f"python-loops: {python_loops.TITLE}")
    try:
        results, rows = python_loops.python_loops_section(build, os.path.join(work, "python-loops"))
    except original_compare.SetupError as e:
        print(f"benchmark section python-loops: {e}", file=sys.stderr)
        raise SystemExit(2)
    for row in rows[2:]:
        log(row)
    return results, [(python_loops.TITLE, rows)]


def run_module_section(cli, build, work, selected):
    """The `module` section (bench/module_bench.py) as [(title, rows)] when selected; a setup problem exits 2."""
    if "module" not in selected:
        return []
    log(f"module: {module_bench.TITLE}")
    try:
        rows = module_bench.module_section(cli, os.path.join(work, "module"),
                                           os.path.join(build, "original-venv", "bin", "python"))
    except module_bench.SetupError as e:
        print(f"benchmark section module: {e}", file=sys.stderr)
        raise SystemExit(2)
    for row in rows[5:7]:
        log(row)
    return [(module_bench.TITLE, rows)]


def original_only(args, build, work, selected):
    """--sections without `existing`: only the original-* sections, a report of their own (not BENCHMARKS.md
    unless --output names it)."""
    cli = os.path.join(build, "nnx-conformance")
    if not os.access(cli, os.X_OK):
        print(f"missing {cli}: run `make build` first", file=sys.stderr)
        return 2
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    record_path = artifacts = None
    if "original-inproc" in selected:  # a tested record and its folder to validate / verify
        tested = os.path.join(work, "tested")
        wall, rss, rc, out, err = timed([cli, "run", "--output", os.path.join(tested, "report.json"), "--force",
                                         "--profile", TORCHSCRIPT])
        if rc != 0:
            print(out, err, file=sys.stderr)
            return 2
        with open(os.path.join(tested, "report.json")) as f:
            document = json.load(f)
        record_path = os.path.join(tested, "torchscript.record.json")
        with open(record_path, "w") as f:
            json.dump(document["profiles"][0], f, indent=2, sort_keys=True)
        artifacts = os.path.join(tested, "report-artifacts")
    results, sections = run_original_sections(cli, build, work, selected, record_path, artifacts)
    loop_results, loop_sections = run_python_loops_section(build, work, selected)
    results.update(loop_results)
    sections += loop_sections + run_matrix_section(cli, work, selected) + run_module_section(cli, build, work, selected)
    output = args.output if args.output != os.path.join(ROOT, "BENCHMARKS.md") or "--output" in sys.argv \
        else os.path.join(build, "bench-work-subset.md")
    with open(output, "w") as f:
        f.write("\n".join(["# Benchmarks (subset: " + ", ".join(selected) + ")", "",
                           f"- Machine: {machine_text()}; load average {loadavg()}", "",
                           *original_report_lines(results, sections)]))
    log(f"wrote {output}")
    for r in results.values():
        print(f"{'PASS' if r['ok'] else 'MISS'}  {r['target']}: {r['value']}")
    return 0 if all(r["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
