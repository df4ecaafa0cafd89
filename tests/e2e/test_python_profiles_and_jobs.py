"""The Python package's profile-file loader and `run_profiles(..., jobs=N)` (issue 14 part C), on the
package this build staged, the real C++ core behind it and the real exporters in the worker."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, REPO, require_runtime, run_cli

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}


def test_load_profiles_gives_profiles_with_every_default_filled_in(tmp_path):
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps([{"name": "small-ts", "exporter": "torchscript", **SMALL},
                                {"name": "feedfwd-fp32-dynamo", "exporter": "dynamo"}]))
    profiles = ec.load_profiles(path)
    assert [type(p) for p in profiles] == [ec.Profile, ec.Profile]
    assert profiles[0].name == "small-ts" and profiles[0].batches == (1, 2)
    assert profiles[0].model["hidden_dims"] == [5] and profiles[0].model["activation"] == ec.MODEL["activation"]
    assert profiles[0].opset_version == ec.Profile("x").opset_version  # a default, from the core
    assert profiles[1] == ec.PROFILES["feedfwd-fp32-dynamo"]  # a tested name with tested settings is tested


def test_load_profiles_names_every_bad_entry_by_index_in_one_usage_error(tmp_path):
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps([{"name": "fine", "exporter": "torchscript"}, {"name": "no-exporter"},
                                {"name": "bad", "exporter": "tflite"}, "not an object"]))
    with pytest.raises(ec.UsageError) as raised:
        ec.load_profiles(path)
    text = str(raised.value)
    for what in ["profiles[1].exporter: missing", "profiles[2]: exporter must be", "profiles[3]: must be an object"]:
        assert what in text, text
    assert "profiles[0]" not in text
    with pytest.raises(ec.UsageError, match="not JSON"):
        (tmp_path / "broken.json").write_text("[{")
        ec.load_profiles(tmp_path / "broken.json")


def test_run_profiles_takes_loaded_profiles_and_jobs_and_keeps_their_order(tmp_path):
    require_runtime()
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps([{"name": f"small-{i}", "exporter": "torchscript", **SMALL} for i in range(3)]))
    report = ec.run_profiles(tmp_path / "artifacts", ec.load_profiles(path), jobs=2)
    assert [r["profile"] for r in report["profiles"]] == ["small-0", "small-1", "small-2"]
    assert report["status"] == "passed", report
    ec.validate_record(report["profiles"][2])


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_run_profiles_refuses_a_bad_job_count_before_anything_is_written(tmp_path, jobs):
    with pytest.raises(ec.UsageError, match="jobs"):
        ec.run_profiles(tmp_path / "artifacts", ["feedfwd-fp32-torchscript"], jobs=jobs)
    assert not (tmp_path / "artifacts").exists()


UNKNOWN = 'unknown profile "resnet50" (tested profiles: feedfwd-fp32-torchscript, feedfwd-fp32-dynamo)'


def test_an_unknown_profile_is_one_usage_error_with_one_message_in_every_front_end(tmp_path):
    """The core's one refusal (profile/profile.h tested_profile_named): the command line exits 2 with it, the
    Python functions raise UsageError (a ConformanceError, as the original's class) with it, and so does the
    brief's script; nothing is written by any of them."""
    done = run_cli("run", "--output", tmp_path / "cli" / "r.json", "--profile", "resnet50")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [f"nnx-conformance: usage error: {UNKNOWN}"]
    refusals = [
        lambda: ec.run_profile("resnet50", tmp_path / "one"),
        lambda: ec.run_profiles(tmp_path / "many", ["feedfwd-fp32-torchscript", "resnet50"]),
        lambda: ec.run_profiles(tmp_path / "jobs", ["resnet50"], jobs=2),
    ]
    for refuse in refusals:
        with pytest.raises(ec.UsageError) as refused:
            refuse()
        assert isinstance(refused.value, ec.ConformanceError) and str(refused.value) == UNKNOWN
        assert refused.value.problems == (UNKNOWN,)
    script = subprocess.run([sys.executable, str(REPO / "scripts" / "check_export_conformance.py"), "--output",
                             str(tmp_path / "script" / "r.json"), "--profile", "resnet50"],
                            capture_output=True, text=True, env={**os.environ, "NNX_BUILD_DIR": str(BUILD)},
                            timeout=120)
    assert script.returncode == 2, script.stderr
    assert script.stderr.strip().splitlines() == [f"check_export_conformance: usage error: {UNKNOWN}"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("jobs, message", [
    (0, "jobs must be at least 1, not 0"),
    (-3, "jobs must be at least 1, not -3"),
    (1.5, "jobs must be a whole number of profiles at once or None, not 1.5"),
    (True, "jobs must be a whole number of profiles at once or None, not True"),
    ("2", "jobs must be a whole number of profiles at once or None, not '2'"),
    (2**70, f"jobs must be a whole number of profiles at once or None, not {2**70}"),
])
def test_the_core_judges_the_job_count_with_the_messages_python_gave(tmp_path, jobs, message):
    with pytest.raises(ec.UsageError) as refused:
        ec.run_profiles(tmp_path / "artifacts", ["resnet50"], jobs=jobs)  # the count is judged first
    assert str(refused.value) == message
    assert not (tmp_path / "artifacts").exists()
