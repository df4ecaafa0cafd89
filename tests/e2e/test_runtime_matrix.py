"""The runtime matrix (issue 11, doc/runtime-matrix.md): one real report of both tested profiles
(conftest.both_profiles) executed under every release of the default set (1.16.3, 1.20.1, 1.24.4, 1.30.0,
1.32.0, the libraries `make runtimes` checked into the cache), each in its own child process, two at once.

Proven here: every cell's record validates (ours, and the original's validator for cells of both kinds); every
cell from 1.20 on is executed and passes; 1.16.3's dynamo cell is a load-error quoting the runtime's own
refusal; drift names a pair and ulps for every case; a shard/merge round trip equals the unsharded matrix and
the merge refuses parts of different reports and overlapping cells; a runtime that crashes (abort at Run) or
hangs (at session creation) is classified — runtime-error / load-error — while a real runtime's cells in the
same matrix still pass (tests/fakes/faulty_runtime.cc); a release not in the cache is a usage error naming
`make runtimes`; Python's runtime_matrix returns the same document shape.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BUILD, REPO, run_cli
from support import runtime_library, without_ci_shard, without_seconds

DEFAULT_SET = ["1.16.3", "1.20.1", "1.24.4", "1.30.0", "1.32.0"]
CRASHING = BUILD / "libnnx_crashing_runtime.so"
HANGING = BUILD / "libnnx_hanging_runtime.so"
OLD = BUILD / "libnnx_old_runtime.so"  # says 1.15.1 (tests/fakes/old_runtime.cc)
PROFILES = ["feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"]

sys.path.insert(0, str(BUILD / "python"))


def versions_args(versions):
    return [arg for v in versions for arg in ("--onnxruntime-version", v)]


def matrix(report, root, out, *args, env=None):
    return run_cli("matrix", report, root, "--output", out, "--jobs", "2", *args, env=env)


@pytest.fixture(scope="module")
def report_and_root(both_profiles):
    done, report, root = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    return root.parent / "report.json", root


@pytest.fixture(scope="module")
def whole(report_and_root, tmp_path_factory):
    report, root = report_and_root
    out = tmp_path_factory.mktemp("matrix") / "matrix.json"
    done = matrix(report, root, out, *versions_args(DEFAULT_SET), "--markdown", out.with_suffix(".md"))
    assert out.exists(), done.stdout + done.stderr
    return done, json.loads(out.read_text()), out


def out_markdown(whole_run):
    return whole_run[2].with_suffix(".md").read_text()


def cell(document, version):
    found = [r for r in document["runtimes"] if r["version"] == version]
    assert len(found) == 1, [r["version"] for r in document["runtimes"]]
    return found[0]


def exit_code_of(failure):
    from nnx.export_conformance import EXIT_CODES
    return EXIT_CODES[failure]


def test_every_release_from_1_20_executes_both_profiles_and_1_16_refuses_the_dynamo_model(whole):
    done, document, _ = whole
    assert document["format"] == "nnx.runtime-matrix/1"
    assert [r["version"] for r in document["runtimes"]] == DEFAULT_SET
    for runtime in document["runtimes"]:
        assert len(runtime["library_sha256"]) == 64
        assert [r["profile"] for r in runtime["records"]] == PROFILES
        for record in runtime["records"]:
            assert record["runtime"]["version"] == runtime["version"]
            assert record["versions"]["onnxruntime_library"].endswith(f"libonnxruntime.so.{runtime['version']}")
        if runtime["version"] != "1.16.3":
            assert runtime["status"] == "passed"
            assert all(r["status"] == "passed" and r["level"] == "executed" for r in runtime["records"])
    old = cell(document, "1.16.3")
    torchscript, dynamo = old["records"]
    assert torchscript["status"] == "passed" and torchscript["level"] == "executed"
    assert dynamo["failure"] == "load-error" and dynamo["stages"]["parity"]["status"] == "not_run"
    refusal = dynamo["stages"]["load"]["detail"]["error"]
    assert "Unsupported model IR version: 10, max supported IR version: 9" in refusal, refusal
    assert old["status"] == "failed" and document["status"] == "failed"
    # Exits like execute: the first failing record's class (1.16.3's dynamo cell).
    assert done.returncode == exit_code_of("load-error"), done.stdout + done.stderr
    lines = [l for l in done.stdout.splitlines() if l.startswith("onnxruntime ")]
    assert len(lines) == len(DEFAULT_SET) * 2, done.stdout
    assert any(l.startswith("onnxruntime 1.16.3  feedfwd-fp32-dynamo: failed (load-error)") for l in lines), done.stdout
    # --markdown renders the matrix (src/report/): every runtime in its table.
    page = out_markdown(whole)
    assert "runtime matrix" in page and all(f"| {v} |" in page for v in DEFAULT_SET), page[:2000]


def test_every_cells_record_validates(whole, tmp_path):
    _, document, _ = whole
    files = []
    for runtime in document["runtimes"]:
        for record in runtime["records"]:
            f = tmp_path / f"{runtime['version']}-{record['profile']}.json"
            f.write_text(json.dumps(record))
            files.append(f)
    done = run_cli("validate", *files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("valid (1 record(s))") == len(DEFAULT_SET) * 2


def originals_validator_accepts(original_python, records, folder):
    (folder / "cells.json").write_text(json.dumps(records))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(original_python), "-c",
                           "import json, sys; from nnx.export_conformance import validate_record\n"
                           "for r in json.load(open(sys.argv[1])): validate_record(r)\nprint('accepted')",
                           str(folder / "cells.json")], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0 and "accepted" in done.stdout, done.stdout + done.stderr


def test_the_originals_validator_accepts_a_passed_and_a_load_error_cell(whole, original_python, tmp_path):
    _, document, _ = whole
    originals_validator_accepts(original_python,
                                [cell(document, "1.32.0")["records"][1], cell(document, "1.16.3")["records"][1]],
                                tmp_path)


def test_drift_names_the_largest_difference_its_pair_and_ulps_for_every_case(whole):
    done, document, _ = whole
    drift = document["drift"]
    outputs = {r["version"]: r["outputs"] for r in document["runtimes"]}
    # 1.16.3 computed no dynamo output (its load refused the model), every other release every matching case.
    assert "feedfwd-fp32-dynamo" not in outputs["1.16.3"] or outputs["1.16.3"]["feedfwd-fp32-dynamo"] == []
    for case in drift["cases"]:
        expected = DEFAULT_SET[1:] if case["profile"] == "feedfwd-fp32-dynamo" else DEFAULT_SET
        assert case["runtimes"] == expected, case
        assert case["newest"] == "1.32.0"
        assert case["pair"][0] in expected and case["pair"][1] in expected and case["pair"][0] != case["pair"][1]
        assert case["max_abs_difference"] >= 0 and isinstance(case["max_ulps"], int)
        assert [v["version"] for v in case["versus_newest"]] == expected[:-1]
        # Recomputed here from the outputs in the document: the pair's largest |difference|.
        a, b = ({c["case"]: c["values"] for c in outputs[v][case["profile"]]}[case["case"]] for v in case["pair"])
        assert max(abs(x - y) for x, y in zip(a, b)) == case["max_abs_difference"]
    assert {c["profile"] for c in drift["cases"]} == set(PROFILES)
    assert all(not b["max_abs_difference"] is None for b in drift["beyond_tolerance"])
    assert sum(l.startswith("drift ") for l in done.stdout.splitlines()) == 2, done.stdout


def test_shards_merged_equal_the_unsharded_matrix(whole, report_and_root, tmp_path):
    _, document, whole_file = whole
    report, root = report_and_root
    parts = []
    for k in range(2):
        part = tmp_path / f"part{k}.json"
        matrix(report, root, part, *versions_args(DEFAULT_SET), "--shard", f"{k}/2")
        parts.append(part)
    shard0 = json.loads(parts[0].read_text())
    assert shard0["shard"] == "0/2" and [r["version"] for r in shard0["runtimes"]] == ["1.16.3", "1.24.4", "1.32.0"]
    merged = tmp_path / "merged.json"
    done = run_cli("matrix-merge", merged, *parts)
    assert done.returncode == exit_code_of("load-error"), done.stdout + done.stderr
    merged_document = json.loads(merged.read_text())
    assert without_seconds(merged_document) == without_seconds(document)  # each cell's own wall time apart
    part_seconds = {r["version"]: r["seconds"] for p in parts for r in json.loads(p.read_text())["runtimes"]}
    assert {r["version"]: r["seconds"] for r in merged_document["runtimes"]} == part_seconds  # kept as measured
    # One shard alone is not the whole matrix: the merge names the shard that is missing and writes nothing.
    lone = tmp_path / "lone.json"
    done = run_cli("matrix-merge", lone, parts[0])
    assert done.returncode == 1 and "shard 1/2 is missing" in done.stderr, done.stderr
    assert not lone.exists()


def matrix_in_ci(report, root, out, ci: dict):
    """`matrix ... --shard ci` in an environment holding exactly the CI variables `ci` (the test's own are
    dropped, so a CI running this suite does not choose the shard)."""
    return subprocess.run([str(BUILD / "nnx-conformance"), "matrix", str(report), str(root), "--output", str(out),
                           "--jobs", "2", *versions_args(DEFAULT_SET), "--shard", "ci"],
                          capture_output=True, text=True, env=without_ci_shard(ci), timeout=900)


def test_shards_taken_from_gitlabs_parallel_job_variables_merge_into_the_unsharded_matrix(whole, report_and_root,
                                                                                          tmp_path):
    _, _, whole_file = whole
    report, root = report_and_root
    parts = []
    for node in (1, 2):  # GitLab counts its jobs from 1
        part = tmp_path / f"ci{node}.json"
        done = matrix_in_ci(report, root, part, {"CI_NODE_INDEX": str(node), "CI_NODE_TOTAL": "2"})
        assert f"matrix: shard {node - 1}/2 from CI_NODE_INDEX={node} CI_NODE_TOTAL=2 (GitLab, index from 1)" \
            in done.stderr, done.stderr
        assert json.loads(part.read_text())["shard"] == f"{node - 1}/2"
        parts.append(part)
    merged = tmp_path / "merged.json"
    run_cli("matrix-merge", merged, *parts)
    assert without_seconds(json.loads(merged.read_text())) == without_seconds(json.loads(whole_file.read_text()))


def test_shard_ci_without_a_ci_variable_is_a_usage_error_naming_them(report_and_root, tmp_path):
    report, root = report_and_root
    done = matrix_in_ci(report, root, tmp_path / "m.json", {})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "none of CI_NODE_INDEX/CI_NODE_TOTAL" in done.stderr and "give --shard K/N" in done.stderr
    done = matrix_in_ci(report, root, tmp_path / "m.json", {"CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "2"})
    assert done.returncode == 2 and "CIRCLE_NODE_INDEX=2 CIRCLE_NODE_TOTAL=2 (CircleCI, index from 0) is not a " \
        "shard" in done.stderr, done.stderr
    assert not (tmp_path / "m.json").exists()


def test_every_cell_names_its_host_and_a_merge_of_two_hosts_parts_says_how_they_differ(whole, report_and_root,
                                                                                       tmp_path):
    _, document, _ = whole
    cpuinfo = Path("/proc/cpuinfo").read_text()
    cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name"))
    for runtime in document["runtimes"]:  # where each cell ran, beside its records (never inside one)
        host = runtime["host"]
        assert (host["cpu"], host["machine"], host["kernel"]) == (cpu, os.uname().machine, os.uname().release)
        assert host["libc"] == "glibc " + os.confstr("CS_GNU_LIBC_VERSION").split()[1]
        assert "sse2" in host["cpu_flags"] and host["cpu_flags"] == sorted(set(host["cpu_flags"]))
        assert all("host" not in record for record in runtime["records"])
    report, root = report_and_root
    parts = []
    for k in range(2):
        parts.append(tmp_path / f"part{k}.json")
        assert matrix(report, root, parts[k], *versions_args(["1.24.4", "1.32.0"]), "--shard", f"{k}/2").returncode == 0
    same = run_cli("matrix-merge", tmp_path / "same.json", *parts)
    assert same.returncode == 0 and "host" not in same.stderr, same.stderr
    # The second part as if made on another machine: another CPU without one of this one's flags.
    other = json.loads(parts[1].read_text())
    gone = other["runtimes"][0]["host"]["cpu_flags"][0]
    other["runtimes"][0]["host"].update(cpu="Another CPU", cpu_flags=other["runtimes"][0]["host"]["cpu_flags"][1:])
    parts[1].write_text(json.dumps(other))
    merged = tmp_path / "merged.json"
    done = run_cli("matrix-merge", merged, *parts)
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert said[0] == (f"matrix-merge: parts come from different hosts: ONNX Runtime 1.32.0 ({parts[1]}) ran on "
                       f"another host than 1.24.4 ({parts[0]}): cpu {json.dumps(cpu)} vs \"Another CPU\"; cpu flags "
                       f"only the first has: {gone}; drift between them mixes host and release"), said
    hosts = [r["host"]["cpu"] for r in json.loads(merged.read_text())["runtimes"]]
    assert hosts == [cpu, "Another CPU"]  # each cell keeps the host it ran on


def test_merge_refuses_parts_of_different_reports_and_overlapping_cells(whole, report_and_root, tmp_path):
    _, _, whole_file = whole
    report, root = report_and_root
    single = tmp_path / "torchscript.json"  # one record of the same run: another report file
    single.write_text(json.dumps(json.loads(report.read_text())["profiles"][0]))
    other = tmp_path / "other.json"
    assert matrix(single, root, other, "--onnxruntime-version", "1.20.1").returncode == 0
    done = run_cli("matrix-merge", tmp_path / "m.json", whole_file, other)
    assert done.returncode == 1 and "different report" in done.stderr and str(other) in done.stderr, done.stderr
    done = run_cli("matrix-merge", tmp_path / "m.json", whole_file, whole_file)
    assert done.returncode == 1 and "overlapping" in done.stderr and "1.16.3" in done.stderr, done.stderr
    assert not (tmp_path / "m.json").exists()


def test_a_crashing_a_hanging_and_a_too_old_runtime_are_classified_and_the_others_complete(
        report_and_root, original_python, tmp_path):
    report, root = report_and_root
    out = tmp_path / "faulty.json"
    env = {"NNX_FAULTY_REAL_ORT": str(runtime_library("1.32.0"))}
    done = matrix(report, root, out, "--onnxruntime", CRASHING, "--onnxruntime", HANGING, "--onnxruntime", OLD,
                  "--onnxruntime-version", "1.30.0", "--timeout", "5", env=env)
    document = json.loads(out.read_text())
    assert [r["version"] for r in document["runtimes"]] == [OLD.name, "1.30.0", "1.32.0+crashing", "1.32.0+hanging"]
    for record in cell(document, OLD.name)["records"]:  # older than the core supports: refused, never a crash
        assert record["failure"] == "load-error" and record["runtime"]["version"] is None
        assert "ONNX Runtime 1.15.1 is older than 1.16" in record["stages"]["load"]["detail"]["error"]
    assert cell(document, "1.30.0")["status"] == "passed"
    for record in cell(document, "1.32.0+crashing")["records"]:
        assert record["failure"] == "runtime-error" and record["stages"]["load"]["status"] == "passed"
        error = record["stages"]["parity"]["detail"]["error"]
        assert "killed by signal 6 (SIGABRT) while running input case batch-1" in error, error
        assert record["input_cases"][0]["outcome"] == "error"
    for record in cell(document, "1.32.0+hanging")["records"]:
        assert record["failure"] == "load-error" and record["stages"]["parity"]["status"] == "not_run"
        error = record["stages"]["load"]["detail"]["error"]
        assert "did not finish within 5" in error and "while creating the session" in error, error
    # The first failing record, runtimes in version order: the unopenable library's (its file name sorts first).
    assert done.returncode == exit_code_of("load-error"), done.stdout + done.stderr
    files = []
    for i, runtime in enumerate(document["runtimes"]):
        for record in runtime["records"]:
            files.append(tmp_path / f"{i}-{record['profile']}.json")
            files[-1].write_text(json.dumps(record))
    assert run_cli("validate", *files).returncode == 0
    originals_validator_accepts(original_python, [cell(document, "1.32.0+crashing")["records"][0],
                                                  cell(document, "1.32.0+hanging")["records"][0]], tmp_path)


def cell_processes(marker: str):
    """Pids of live matrix cells (`nnx-conformance matrix-cell ...`) whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0") if entry.name.isdigit() else []
            if "matrix-cell" in argv and marker in argv:
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_sigint_kills_every_cell_and_writes_nothing(report_and_root, tmp_path):
    report, root = report_and_root
    out = tmp_path / "m.json"
    env = {**os.environ, "NNX_FAULTY_REAL_ORT": str(runtime_library("1.32.0"))}
    matrix_run = subprocess.Popen([str(BUILD / "nnx-conformance"), "matrix", str(report), str(root),
                                   "--output", str(out), "--onnxruntime", str(HANGING), "--timeout", "120"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not cell_processes(str(HANGING)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cell_processes(str(HANGING)), "the hanging cell never started"
    time.sleep(0.5)  # into the hang
    matrix_run.send_signal(signal.SIGINT)
    _, err = matrix_run.communicate(timeout=60)
    assert matrix_run.returncode == 130, err
    assert "interrupted by SIGINT" in err and not out.exists()
    assert cell_processes(str(HANGING)) == []


def test_a_release_not_in_the_cache_or_a_missing_library_is_a_usage_error(report_and_root, tmp_path):
    report, root = report_and_root
    out = tmp_path / "m.json"
    done = matrix(report, root, out, "--onnxruntime-version", "1.32.0", "--onnxruntime-version", "9.9.9")
    assert done.returncode == 2 and "make runtimes ORT_VERSIONS=9.9.9" in done.stderr, done.stderr
    assert not out.exists()
    done = matrix(report, root, out, "--onnxruntime-version", "1.32.0", "--shard", "2/2")
    assert done.returncode == 2 and "--shard" in done.stderr and not out.exists()
    done = matrix(report, root, out, "--onnxruntime", tmp_path / "no-such-lib.so")
    assert done.returncode == 2 and "no such library file" in done.stderr and not out.exists(), done.stderr


def test_python_runtime_matrix_returns_the_matrix_and_execute_takes_a_library(report_and_root, tmp_path):
    report, root = report_and_root
    code = ("import json, sys\nfrom nnx.export_conformance import execute, runtime_matrix\n"
            "m = runtime_matrix(sys.argv[1], sys.argv[2], runtimes=[sys.argv[3], '1.32.0'], jobs=2)\n"
            "record = json.load(open(sys.argv[1]))['profiles'][0]\n"
            "again = execute(record, sys.argv[2], onnxruntime=sys.argv[3], reference='native')\n"
            "print(json.dumps(again['runtime']['version']))\n"
            "print(json.dumps(m))")
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python")}
    done = subprocess.run([sys.executable, "-c", code, str(report), str(root), str(runtime_library("1.20.1"))],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    executed_with, matrix_text = done.stdout.splitlines()[-2:]
    assert json.loads(executed_with) == "1.20.1"
    document = json.loads(matrix_text)
    assert [r["version"] for r in document["runtimes"]] == ["1.20.1", "1.32.0"]
    assert document["status"] == "passed" and len(document["drift"]["cases"]) >= 2
