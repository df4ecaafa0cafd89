"""Session settings beside the release (doc/record-format.md §11, "session settings"; issue "Every way it is
run"): `execute --optimization-level --intra-op-threads --session-config KEY=VALUE` runs a module or
successor-format record under other session settings and the record says them in full (runtime.session, kept
exactly as run, re-executed as it says); more than one intra-op thread runs each case twice and the parity
detail says whether the runs agree; a v1 record claiming other settings than the brief's is invalid (a tested
profile's record under other settings is §11's kind "built-in": test_built_in_under_other_settings.py); a level
a release lacks is that record's load-error quoting the release."""
import json

import pytest

from conftest import run_cli
from onnx_file_support import elementwise_profile


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("settings")
    (folder / "p.json").write_text(json.dumps([elementwise_profile(folder / "model", ["Exp", "Tanh"], 1e-4, 1e-5)]))
    done = run_cli("run", "--profile-file", folder / "p.json", "--output", folder / "r.json", "--no-localize")
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def executed(folder, name, *flags, code=0):
    done = run_cli("execute", folder / "r.json", folder / "r-artifacts", "--output", folder / name, *flags)
    assert done.returncode == code, done.stdout + done.stderr
    return json.loads((folder / name).read_text())["profiles"][0]


def test_a_successor_record_runs_under_the_settings_asked_and_says_them_in_full(report):
    record = executed(report, "e.json", "--optimization-level", "ORT_DISABLE_ALL", "--intra-op-threads", "2",
                      "--session-config", "session.set_denormal_as_zero=1")
    assert record["runtime"]["session"] == {"graph_optimization_level": "ORT_DISABLE_ALL", "inter_op_num_threads": 1,
                                            "intra_op_num_threads": 2,
                                            "config": {"session.set_denormal_as_zero": "1"}}
    assert record["status"] == "passed"
    assert record["stages"]["parity"]["detail"]["deterministic"] == {"threads": 2, "runs": 2, "identical": True,
                                                                     "cases_differing": []}
    assert run_cli("validate", report / "e.json").returncode == 0
    again = run_cli("execute", report / "e.json", report / "r-artifacts", "--output", report / "again.json")
    assert again.returncode == 0, again.stderr
    assert json.loads((report / "again.json").read_text())["profiles"][0]["runtime"]["session"] == \
        record["runtime"]["session"]  # a record runs again as it says


def test_one_thread_runs_each_case_once_and_says_nothing_of_determinism(report):
    record = executed(report, "one.json", "--optimization-level", "ORT_ENABLE_BASIC")
    assert "deterministic" not in record["stages"]["parity"]["detail"]
    assert record["runtime"]["session"]["graph_optimization_level"] == "ORT_ENABLE_BASIC"


def test_the_layout_level_is_a_load_error_of_a_release_that_lacks_it(report):
    record = executed(report, "old.json", "--optimization-level", "ORT_ENABLE_LAYOUT", "--onnxruntime-version",
                      "1.16.3", code=15)
    load = record["stages"]["load"]
    assert load["failure"] == "load-error" and "graph_optimization_level is not valid" in load["detail"]["error"]
    assert executed(report, "new.json", "--optimization-level", "ORT_ENABLE_LAYOUT", "--onnxruntime-version",
                    "1.32.0")["status"] == "passed"


def test_a_record_of_the_briefs_format_claiming_other_settings_is_invalid(both_profiles, tmp_path):
    _, document, _ = both_profiles  # under other settings a tested profile's record is §11's kind "built-in"
    record = json.loads(json.dumps(document["profiles"][0]))  # (tests/e2e/test_built_in_under_other_settings.py)
    record["runtime"]["session"]["intra_op_num_threads"] = 2
    (tmp_path / "edited.json").write_text(json.dumps(record))
    done = run_cli("validate", tmp_path / "edited.json")
    assert done.returncode == 1 and "other session options" in done.stderr, done.stderr


@pytest.mark.parametrize("change, problem", [
    ({"graph_optimization_level": "ORT_FAST"}, "graph_optimization_level: must be one of"),
    ({"intra_op_num_threads": 0}, "intra_op_num_threads: must be a whole number from 1 to 256"),
    ({"inter_op_num_threads": 2}, "inter_op_num_threads: must be 1"),
    ({"config": {"session.set_denormal_as_zero": 1}}, "config: must be a non-empty object of KEY: VALUE strings"),
    ({"threads": 2}, 'unknown key "threads"'),
])
def test_a_successor_records_session_outside_the_rules_is_refused_naming_it(report, tmp_path, change, problem):
    record = json.loads((report / "r.json").read_text())["profiles"][0]
    record["runtime"]["session"].update(change)
    (tmp_path / "edited.json").write_text(json.dumps(record))
    done = run_cli("validate", tmp_path / "edited.json")
    assert done.returncode == 1 and problem in done.stderr, done.stderr


def test_a_session_config_entry_needs_a_key_and_a_value(report):
    done = run_cli("execute", report / "r.json", report / "r-artifacts", "--session-config", "no-equals-sign")
    assert done.returncode == 2 and "--session-config takes KEY=VALUE, not no-equals-sign" in done.stderr, done.stderr


def test_the_python_api_takes_the_same_settings(report):
    import sys
    from conftest import BUILD
    sys.path.insert(0, str(BUILD / "python"))
    import nnx.export_conformance as api
    new = api.execute(report / "r.json", report / "r-artifacts", optimization_level="ORT_ENABLE_EXTENDED",
                      intra_op_threads=2, session_config={"session.disable_prepacking": "1"})
    session = new["profiles"][0]["runtime"]["session"]
    assert session == {"graph_optimization_level": "ORT_ENABLE_EXTENDED", "inter_op_num_threads": 1,
                       "intra_op_num_threads": 2, "config": {"session.disable_prepacking": "1"}}
    with pytest.raises(api.UsageError, match="intra-op threads must be from 1 to 256, not 0"):
        api.execute(report / "r.json", report / "r-artifacts", intra_op_threads=0)
    with pytest.raises(api.ArgumentError, match="session_config must be a mapping"):
        api.execute(report / "r.json", report / "r-artifacts", session_config={"k": 1})


def test_run_and_check_write_records_under_the_settings_asked(report, tmp_path):
    done = run_cli("run", "--profile-file", report / "p.json", "--output", tmp_path / "run.json", "--no-localize",
                   "--optimization-level", "ORT_ENABLE_BASIC", "--intra-op-threads", "2",
                   "--session-config", "session.disable_prepacking=1")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((tmp_path / "run.json").read_text())["profiles"][0]
    assert record["runtime"]["session"] == {"graph_optimization_level": "ORT_ENABLE_BASIC", "inter_op_num_threads": 1,
                                            "intra_op_num_threads": 2, "config": {"session.disable_prepacking": "1"}}
    assert record["stages"]["parity"]["detail"]["deterministic"]["identical"] is True
    profile = json.loads((report / "p.json").read_text())[0]
    done = run_cli("check", "--output", tmp_path / "check.json", "--no-localize", "--optimization-level",
                   "ORT_DISABLE_ALL", "--name", "one", "--onnx", profile["onnx"], "--data", profile["data"])
    assert done.returncode == 0, done.stdout + done.stderr
    checked = json.loads((tmp_path / "check.json").read_text())["profiles"][0]
    assert checked["runtime"]["session"]["graph_optimization_level"] == "ORT_DISABLE_ALL"


def test_settings_outside_the_successor_formats_are_refused_before_anything_runs(tmp_path):
    done = run_cli("run", "--output", tmp_path / "t.json", "--intra-op-threads", "0")
    assert done.returncode == 2 and "--intra-op-threads: Value 0 not in range 1 to 256" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # no report, no artifacts folder
