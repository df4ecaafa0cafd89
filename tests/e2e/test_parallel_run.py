"""`run --jobs N` (issue 14 part C): independent profiles exported at once by up to N warm workers, with the
real exporters, the real checker and the real ONNX Runtime. A parallel run records exactly what a sequential
one records (records and artifact bytes), and a crash or hang in one profile's export is that profile's
export-error while the other worker finishes the rest."""
import hashlib
import json
import os
import signal
import time

import pytest

from conftest import fault_env, run_cli
from hostile_support import assert_no_process_left, finish, marked_env, processes_with, start_cli, wait_for
from support import records_by_profile, workers_of

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}
CUSTOM = [
    {"name": "small-ts", "exporter": "torchscript", **SMALL},
    {"name": "wide-ts", "exporter": "torchscript", "batches": [1, 3],
     "model": {"input_dim": 6, "hidden_dims": [16, 8], "output_dim": 3, "activation": "tanh"}},
    {"name": "small-dynamo", "exporter": "dynamo", **SMALL},
]
TESTED = [{"name": "feedfwd-fp32-torchscript", "exporter": "torchscript"},
          {"name": "feedfwd-fp32-dynamo", "exporter": "dynamo"}]


def run_jobs(tmp_path, tag, profiles, jobs, env=None):
    """One `run --jobs N --profile-file` into tmp_path/tag: (completed process, report, timings, artifacts)."""
    folder = tmp_path / tag
    folder.mkdir()
    (folder / "profiles.json").write_text(json.dumps(profiles))
    done = run_cli("run", "--output", folder / "report.json", "--profile-file", folder / "profiles.json",
                   "--jobs", jobs, "--timings", folder / "timings.json", env=env, timeout=1800)
    report = json.loads((folder / "report.json").read_text()) if (folder / "report.json").exists() else None
    timings = json.loads((folder / "timings.json").read_text()) if (folder / "timings.json").exists() else None
    return done, report, timings, folder / "report-artifacts"


def without_times(value):
    """The record with every wall time left out (a key ending in `_s` or `seconds` in any details)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if not (k.endswith("_s") or k.endswith("seconds"))}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def comparable(record):
    """A record without what two runs of the same settings may differ in: its creation time (and wall times
    in details, should any stage ever record one)."""
    return without_times({k: v for k, v in record.items() if k not in {"created_utc", "timestamp"}})


def artifact_digests(root):
    """{path relative to the artifacts root: sha256 of its bytes} for every file of every profile folder."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_jobs_record_exactly_what_one_job_records_and_use_two_workers(tmp_path):
    profiles = TESTED + CUSTOM
    one, report_one, timings_one, root_one = run_jobs(tmp_path, "jobs-1", profiles, 1)
    two, report_two, timings_two, root_two = run_jobs(tmp_path, "jobs-2", profiles, 2)
    assert one.returncode == 0, one.stdout + one.stderr
    assert two.returncode == 0, two.stdout + two.stderr
    names = [p["name"] for p in profiles]
    # The records come back in the profiles' order, whatever worker finished first.
    assert [r["profile"] for r in report_two["profiles"]] == names
    assert [r["profile"] for r in report_one["profiles"]] == names
    for sequential, parallel in zip(report_one["profiles"], report_two["profiles"]):
        assert parallel["status"] == "passed", parallel
        assert comparable(parallel) == comparable(sequential), parallel["profile"]
    digests = artifact_digests(root_two)
    assert digests == artifact_digests(root_one)
    assert {path.split("/")[0] for path in digests if path.endswith("/model.onnx")} == set(names), digests
    # Who did what: one warm worker for --jobs 1, two workers sharing the profiles for --jobs 2.
    assert set(workers_of(timings_one).values()) == {0}, timings_one
    served = workers_of(timings_two)
    assert set(served) == set(names) and set(served.values()) == {0, 1}, timings_two
    # The two workers ran at the same time: some export of one falls inside the other's busy span.
    spans = {}
    for phase in timings_two["phases"]:
        if phase["worker"] is not None and phase["name"] in ("export", "check"):
            start, end = phase["start_s"], phase["start_s"] + phase["seconds"]
            low, high = spans.get(phase["worker"], (start, end))
            spans[phase["worker"]] = (min(low, start), max(high, end))
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1], spans


def test_onnxscript_is_imported_only_by_a_worker_that_serves_a_dynamo_profile(tmp_path):
    done, report, timings, _ = run_jobs(tmp_path, "ts-only", CUSTOM[:2], 2)
    assert done.returncode == 0, done.stdout + done.stderr
    names = {p["name"] for p in timings["phases"]}
    assert "import_torch" in names and "import_onnxscript" not in names, names
    # The runtime opens inside worker_start, beside the worker's start (both in the same phase window).
    for opened in [p for p in timings["phases"] if p["name"] == "runtime_open"]:
        start = [p for p in timings["phases"] if p["name"] == "worker_start" and p["profile"] == opened["profile"]][0]
        assert start["start_s"] <= opened["start_s"] and opened["seconds"] <= start["seconds"] + 1e-6


def check_fault_stays_in_its_profile(tmp_path, fault):
    profiles = [{"name": name, "exporter": "torchscript", **SMALL} for name in ["first", "victim", "third", "fourth"]]
    env = fault_env(fault, NNX_TEST_FAULT_PROFILE="victim", NNX_WORKER_TIMEOUT_SECONDS=20)
    done, report, timings, _ = run_jobs(tmp_path, fault, profiles, 2, env=env)
    assert done.returncode != 0
    records = records_by_profile(report)
    assert list(records) == ["first", "victim", "third", "fourth"]
    assert records["victim"]["failure"] == "export-error", records["victim"]
    for name in ["first", "third", "fourth"]:
        assert records[name]["status"] == "passed", records[name]
    served = workers_of(timings)
    assert len(set(served.values())) >= 2, timings
    return records, served


def test_a_crash_in_one_profiles_export_with_two_jobs_is_its_export_error_and_the_others_pass(tmp_path):
    records, served = check_fault_stays_in_its_profile(tmp_path, "crash")
    assert "SIGKILL" in json.dumps(records["victim"]["stages"]["export"]), records["victim"]
    # The crashed worker served no later profile: whatever its thread took next got a fresh worker.
    later = [name for name in ["third", "fourth"] if served[name] == served["victim"]]
    assert later == [], served


def test_a_hang_in_one_profiles_export_with_two_jobs_is_its_export_error_and_the_others_pass(tmp_path):
    records, served = check_fault_stays_in_its_profile(tmp_path, "hang")
    assert "did not answer 'export' within 20000 ms" in json.dumps(records["victim"]["stages"]["export"])
    assert all(served[name] != served["victim"] for name in ["third", "fourth"]), served


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_two_workers_export_stops_both_and_writes_nothing(tmp_path, sig, code):
    profiles = [{"name": f"hung-{i}", "exporter": "torchscript", **SMALL} for i in range(4)]
    (tmp_path / "profiles.json").write_text(json.dumps(profiles))
    env, marker = marked_env({"NNX_TEST_FAULT": "hang"})  # every export hangs: both workers are mid-export
    proc = start_cli("run", "--output", tmp_path / "r.json", "--profile-file", tmp_path / "profiles.json",
                     "--jobs", "2", env=env)
    root = tmp_path / "r-artifacts"
    wait_for(lambda: (root / "hung-0").exists() and (root / "hung-1").exists()
             and len([pid for pid, _ in processes_with(marker) if pid != proc.pid]) >= 2, 180,
             "two workers to be exporting")
    time.sleep(0.5)
    started = time.monotonic()
    os.kill(proc.pid, sig)
    rc, out, err = finish(proc, timeout=30)
    assert time.monotonic() - started < 10, "the run must stop promptly"
    assert rc == code, out + err
    assert not (tmp_path / "r.json").exists()
    assert not (root / "hung-2").exists() and not (root / "hung-3").exists(), "no further profile was started"
    assert_no_process_left(marker, grace=2.0)


def test_jobs_below_one_is_a_usage_error_and_writes_nothing(tmp_path):
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--jobs", "0")
    assert done.returncode == 2 and "--jobs" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
