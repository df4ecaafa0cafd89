"""`run --profile-file`, `--timings` and the live progress line (issue 14 part A), with the real exporters."""
import json

import pytest

from conftest import require_runtime, run_cli
from support import records_by_profile, run_in_terminal

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}
PHASES = {"worker_start", "export", "check", "reference", "load", "parity", "write"}


def write_profiles(path, profiles):
    path.write_text(json.dumps(profiles))
    return path


def test_profile_file_with_bad_entries_names_each_index_and_writes_nothing(tmp_path):
    profiles = write_profiles(tmp_path / "profiles.json", [
        {"name": "fine", "exporter": "torchscript"},
        {"name": "no-exporter"},
        {"name": "bad", "exporter": "tflite"},
        {"exporter": "dynamo"},
        {"name": "feedfwd-fp32-dynamo", "exporter": "dynamo", "rtol": 0.5},
        {"name": "fine", "exporter": "torchscript", "surprise": 1},
        "not an object",
    ])
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--profile-file", profiles,
                   "--timings", tmp_path / "out" / "timings.json")
    assert done.returncode == 2, done.stdout + done.stderr
    for index, what in [(1, "profiles[1].exporter: missing"), (2, "profiles[2]: exporter must be"),
                        (3, "profiles[3].name: missing"), (4, "profiles[4]: profile \"feedfwd-fp32-dynamo\" reuses"),
                        (5, "profiles[5]"), (6, "profiles[6]: must be an object")]:
        assert what in done.stderr, (index, done.stderr)
    assert "profiles[0]" not in done.stderr
    assert "surprise" in done.stderr
    assert not (tmp_path / "out").exists()


def test_profile_file_that_is_not_a_list_is_a_usage_error(tmp_path):
    profiles = tmp_path / "profiles.json"
    profiles.write_text('{"name": "x", "exporter": "torchscript"}')
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--profile-file", profiles)
    assert done.returncode == 2 and "JSON list" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, words", [
    ('[{"name": "a", "exporter": "torchscript", "rtol": 1e400}]', "number overflow parsing '1e400'"),
    ('[{"name": "a", "name": "b", "exporter": "torchscript"}]', 'duplicate object key "name"'),
    ('[{"name": "a", "exporter": "torchscript", "atol": NaN}]', "NaN"),
])
def test_a_profile_file_that_is_not_strict_json_is_a_usage_error_naming_the_file(tmp_path, text, words):
    profiles = tmp_path / "profiles.json"
    profiles.write_text(text)
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--profile-file", profiles)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"the profile file {profiles} is not JSON" in done.stderr and words in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_profile_name_longer_than_a_folder_name_is_refused_before_anything_runs(tmp_path):
    profiles = write_profiles(tmp_path / "profiles.json", [{"name": "x" * 256, "exporter": "torchscript"}])
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--profile-file", profiles)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is 256 bytes long; its folder's name may have at most 255: shorten it" in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_profile_name_as_long_as_a_folder_name_may_be_runs(tmp_path):
    require_runtime()
    name = "y" * 255
    profiles = write_profiles(tmp_path / "profiles.json", [{"name": name, "exporter": "torchscript", **SMALL}])
    done = run_cli("run", "--output", tmp_path / "report.json", "--profile-file", profiles, "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "report-artifacts" / name / "model.onnx").is_file()


def test_profile_file_runs_custom_and_tested_profiles_and_times_every_phase(tmp_path):
    profiles = write_profiles(tmp_path / "profiles.json", [
        {"name": "small-ts", "exporter": "torchscript", **SMALL},
        {"name": "feedfwd-fp32-torchscript", "exporter": "torchscript"},
    ])
    timings = tmp_path / "timings.json"
    done = run_cli("run", "--output", tmp_path / "report.json", "--profile-file", profiles, "--timings", timings,
                   "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    by_name = records_by_profile(report)
    assert list(by_name) == ["small-ts", "feedfwd-fp32-torchscript"]
    assert all(r["status"] == "passed" for r in by_name.values())
    assert by_name["small-ts"]["input_cases"][0]["shape"] == [1, 3]
    assert by_name["feedfwd-fp32-torchscript"]["input_cases"][0]["shape"] == [1, 4]
    assert [c["name"] for c in by_name["small-ts"]["input_cases"]] == ["batch-1", "batch-2", "width-4"]
    assert done.stderr == ""  # not a terminal: no progress line
    measured = json.loads(timings.read_text())
    assert measured["total_s"] > 0
    for profile in by_name:
        names = {p["name"] for p in measured["phases"] if p["profile"] == profile}
        assert names == PHASES - {"write"} | {"import_torch", "runtime_open"}, (profile, names)  # no onnxscript
    writes = [p for p in measured["phases"] if p["name"] == "write"]
    assert len(writes) == 1 and writes[0]["profile"] is None and writes[0]["worker"] is None
    imports = [p for p in measured["phases"] if p["name"] == "import_torch"]
    # --jobs 1, one warm worker: torch is imported by the first profile's worker only (the second finds it).
    assert [p["worker"] for p in imports] == [0, 0] and imports[0]["seconds"] > imports[1]["seconds"]
    # The warm worker's dependencies answer for the same modules is given again, not asked again (0 s, where
    # the worker's own timing of an import it already has is never exactly 0), with the same versions.
    assert imports[1]["seconds"] == 0.0, imports
    first, second = by_name["small-ts"], by_name["feedfwd-fp32-torchscript"]
    assert second["versions"] == first["versions"] and second["stages"]["dependencies"] == first["stages"]["dependencies"]
    for phase in measured["phases"]:
        assert 0 <= phase["start_s"] and 0 <= phase["seconds"]
        assert phase["start_s"] + phase["seconds"] <= measured["total_s"] + 1e-6
    assert "timings" not in (tmp_path / "report.json").read_text()


def test_a_timings_path_that_cannot_be_written_is_a_usage_error_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    for timings, what in [(tmp_path / "missing" / "t.json", "does not exist"),
                          (out / "report.json", "is the same file as --output"),
                          (out / "report-artifacts" / "t.json", "is inside the artifacts root"),
                          (tmp_path / "art" / "deep" / "t.json", "is inside the artifacts root"),
                          (tmp_path, "is a folder")]:
        artifacts = [] if "report-artifacts" in str(timings) else ["--artifacts", tmp_path / "art"]
        done = run_cli("run", "--output", out / "report.json", *artifacts, "--timings", timings)
        assert done.returncode == 2, (timings, done.stdout + done.stderr)
        assert "--timings" in done.stderr and what in done.stderr, (timings, done.stderr)
        assert not out.exists() and not (tmp_path / "art").exists() and not (tmp_path / "missing").exists()


def test_a_terminal_shows_each_profile_and_stage_and_quiet_shows_nothing(tmp_path):
    profiles = write_profiles(tmp_path / "profiles.json", [{"name": "small-ts", "exporter": "torchscript", **SMALL}])
    code, out, shown = run_in_terminal("run", "--output", tmp_path / "a" / "report.json", "--profile-file", profiles)
    assert code == 0, out + shown
    for stage in ["dependencies", "export", "check", "load", "parity"]:
        assert f"nnx: small-ts: {stage}" in shown, shown
    assert shown.endswith("\r\x1b[K")  # the line is cleared at the end
    assert "small-ts" in out and "nnx: " not in out  # the summary on stdout is unchanged

    code, out, shown = run_in_terminal("run", "--output", tmp_path / "b" / "report.json", "--profile-file", profiles,
                                       "--quiet")
    assert code == 0, out + shown
    assert shown == ""
    assert "small-ts" in out
