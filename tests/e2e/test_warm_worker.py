"""One warm exporter worker serves a run's profiles in turn (issue 14 part A), with the real exporters:
each export keeps its own state proof and warnings, and a crash or hang in one profile's export is that
profile's export-error while the others complete with a fresh worker."""
import json

from conftest import fault_env, run_cli
from support import records_by_profile, workers_of

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}


def run_file(tmp_path, profiles, env=None, tag="run"):
    folder = tmp_path / tag
    folder.mkdir()
    (folder / "profiles.json").write_text(json.dumps(profiles))
    # --jobs 1: one thread, so one warm worker serves the profiles in turn (test_parallel_run.py: --jobs N).
    done = run_cli("run", "--output", folder / "report.json", "--profile-file", folder / "profiles.json",
                   "--jobs", "1", "--timings", folder / "timings.json", env=env, timeout=1800)
    report = json.loads((folder / "report.json").read_text()) if (folder / "report.json").exists() else None
    timings = json.loads((folder / "timings.json").read_text()) if (folder / "timings.json").exists() else None
    return done, report, timings


def comparable(record):
    """A record without what differs between two runs of the same settings (folder, times, source)."""
    drop = {"profile", "source", "artifacts", "created_utc", "timestamp"}
    return {k: v for k, v in record.items() if k not in drop}


def test_one_worker_serves_every_profile_and_records_match_a_worker_per_profile(tmp_path):
    profiles = [{"name": "first", "exporter": "torchscript", **SMALL},
                {"name": "second", "exporter": "torchscript", **SMALL},
                {"name": "feedfwd-fp32-dynamo", "exporter": "dynamo"}]
    done, report, timings = run_file(tmp_path, profiles)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(workers_of(timings).values()) == {0}, timings  # one worker: torch imported once
    records = records_by_profile(report)
    # The same settings in the warm worker (after another export) give the same export outcome.
    assert records["first"]["stages"]["export"] == records["second"]["stages"]["export"]
    assert records["first"]["model_state"] == records["second"]["model_state"] == {
        "parameters": True, "gradients": True, "modes": True}
    # Each profile alone (its own cold worker) records the same as in the shared worker.
    for name in ["second", "feedfwd-fp32-dynamo"]:
        alone_done, alone, _ = run_file(tmp_path, [p for p in profiles if p["name"] == name], tag="alone-" + name)
        assert alone_done.returncode == 0, alone_done.stderr
        shared, single = records[name], alone["profiles"][0]
        assert shared["stages"]["export"] == single["stages"]["export"], name
        assert shared["model_state"] == single["model_state"]
        assert shared["status"] == single["status"] and shared["level"] == single["level"]


def test_the_worker_exports_the_next_profile_while_the_runtime_loads_and_runs_the_last(tmp_path):
    profiles = [{"name": f"lane-{i}", "exporter": "torchscript", **SMALL} for i in range(4)]
    done, report, timings = run_file(tmp_path, profiles)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r["status"] for r in report["profiles"]] == ["passed"] * 4, report
    phases = {(p["name"], p["profile"]): p for p in timings["phases"]}
    names = [p["name"] for p in profiles]
    for name in names:
        # Parity's reference is the worker's (asked before the profile gives its worker back); load and
        # parity then run without one.
        assert phases[("reference", name)]["worker"] == 0, timings
        assert phases[("load", name)]["worker"] is None and phases[("parity", name)]["worker"] is None, timings
        assert phases[("reference", name)]["start_s"] <= phases[("load", name)]["start_s"], timings
    # One worker, and yet a profile's load or parity runs while the worker serves the next profile.
    def span(name, profile):
        phase = phases[(name, profile)]
        return phase["start_s"], phase["start_s"] + phase["seconds"]

    overlapped = []
    for last, following in zip(names, names[1:]):
        runtime_start, runtime_end = span("load", last)[0], span("parity", last)[1]
        worker_start, worker_end = span("worker_start", following)[0], span("reference", following)[1]
        if runtime_start < worker_end and worker_start < runtime_end:
            overlapped.append(last)
    assert overlapped, timings


def test_a_state_change_in_one_profile_stays_in_that_profiles_record(tmp_path):
    profiles = [{"name": "clean-before", "exporter": "torchscript", **SMALL},
                {"name": "mutated", "exporter": "torchscript", **SMALL},
                {"name": "clean-after", "exporter": "torchscript", **SMALL}]
    done, report, timings = run_file(tmp_path, profiles,
                                     env=fault_env("mutate-parameter", NNX_TEST_FAULT_PROFILE="mutated"))
    records = records_by_profile(report)
    assert records["mutated"]["failure"] == "state-changed", records["mutated"]
    assert records["mutated"]["model_state"]["parameters"] is False
    for name in ["clean-before", "clean-after"]:
        assert records[name]["status"] == "passed", records[name]
        assert records[name]["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert set(workers_of(timings).values()) == {0}
    assert done.returncode != 0


def check_fault_stays_in_its_profile(tmp_path, fault):
    profiles = [{"name": "before", "exporter": "torchscript", **SMALL},
                {"name": "victim", "exporter": "torchscript", **SMALL},
                {"name": "after", "exporter": "torchscript", **SMALL}]
    env = fault_env(fault, NNX_TEST_FAULT_PROFILE="victim", NNX_WORKER_TIMEOUT_SECONDS=30)
    done, report, timings = run_file(tmp_path, profiles, env=env, tag=fault)
    records = records_by_profile(report)
    assert records["victim"]["failure"] == "export-error", records["victim"]
    assert records["before"]["status"] == "passed" and records["after"]["status"] == "passed", report
    workers = workers_of(timings)
    assert workers["before"] == workers["victim"] == 0 and workers["after"] == 1, timings
    return done, records


def test_a_crash_in_one_profiles_export_is_its_export_error_and_the_next_gets_a_fresh_worker(tmp_path):
    done, records = check_fault_stays_in_its_profile(tmp_path, "crash")
    assert "SIGKILL" in json.dumps(records["victim"]["stages"]["export"]), records["victim"]
    assert done.returncode != 0


def test_a_hang_in_one_profiles_export_is_its_export_error_and_the_next_gets_a_fresh_worker(tmp_path):
    _, records = check_fault_stays_in_its_profile(tmp_path, "hang")
    assert "did not answer 'export' within 30000 ms" in json.dumps(records["victim"]["stages"]["export"])
