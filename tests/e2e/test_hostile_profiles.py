"""Hostile profile files on the built command line (issue 28, "Data loss" and "Wrong codes and messages"):
tolerances whose margins cannot be computed, huge files of duplicate names, text that is not strict JSON.
Each is a usage error (exit 2) naming the file, the entry and the problem, before anything runs or is
written; a file is checked in linear time and sane memory."""
import json
import subprocess
import sys
import time

import pytest

from conftest import CLI, require_runtime, run_cli
from module_support import conv_bn_profile

SUBNORMAL = 5e-324  # the smallest double, which "finite and >= 0" let through
NEEDLE = ("must be 0 or at least 1.1754943508222875e-38 (float32's smallest normal number), not 5e-324: a smaller "
          "tolerance allows less than float32 can tell apart and its margins overflow; use 0 for exact equality")


def refused(tmp_path, text):
    """Runs the command line on a profile file holding `text`; it must refuse it and write nothing."""
    profiles = tmp_path / "profiles.json"
    profiles.write_text(text)
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert not (tmp_path / "out").exists()
    return profiles, done.stderr


@pytest.mark.parametrize("key", ["rtol", "atol"])
def test_a_subnormal_tolerance_is_refused_before_anything_runs(tmp_path, key):
    profiles, stderr = refused(tmp_path, json.dumps([{"name": "tiny", "exporter": "torchscript", key: SUBNORMAL}]))
    assert f"{profiles}: bad profile file:\n  - profiles[0]: {key} {NEEDLE}" in stderr, stderr


def test_subnormal_tolerances_on_a_module_profile_are_refused_too(tmp_path):
    profile = conv_bn_profile(tolerances={"rtol": SUBNORMAL, "atol": SUBNORMAL})
    _, stderr = refused(tmp_path, json.dumps([profile]))
    assert f"rtol {NEEDLE}" in stderr and f"atol {NEEDLE}" in stderr, stderr


def test_the_smallest_allowed_tolerance_and_zero_run_and_write_a_valid_record(tmp_path):
    require_runtime()
    small = {"batches": [1], "model": {"input_dim": 3, "hidden_dims": [4], "output_dim": 2}}
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps([{"name": "tightest", "exporter": "torchscript", "rtol": 1.1754943508222875e-38,
                                     "atol": 0.0, **small}]))
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json", "--quiet")
    # Float32 arithmetic may or may not match the reference bit for bit; either way a record is written.
    assert done.returncode in (0, 16), done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "report.json").read_text())["profiles"]
    for entry in record["stages"]["parity"]["detail"]["triangulation"]:
        assert entry["margin"] is None or entry["margin"] >= 0  # a number or null, never lost
    assert run_cli("validate", tmp_path / "report.json").returncode == 0


def timed_refusal(tmp_path, count):
    """(seconds, peak RSS in KiB) of the command line refusing `count` profiles all named the same."""
    profiles = tmp_path / f"dup-{count}.json"
    profiles.write_text(json.dumps([{"name": "same", "exporter": "torchscript"}] * count))
    measure = ("import resource, subprocess, sys, time; start = time.monotonic(); "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(done.returncode, time.monotonic() - start, "
               "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "print(done.stderr.count('is already profiles[0]'))")
    done = subprocess.run([sys.executable, "-c", measure, str(CLI), "run", "--profile-file", str(profiles),
                           "--output", str(tmp_path / "out" / "r.json")], capture_output=True, text=True, timeout=300)
    first, second = done.stdout.split("\n")[:2]
    code, seconds, peak_kib = first.split()
    assert int(code) == 2, done.stdout + done.stderr
    assert int(second) == count - 1  # every later entry named once, against the first
    return float(seconds), int(peak_kib)


def test_a_profile_file_of_many_duplicate_names_is_checked_in_linear_time_and_sane_memory(tmp_path):
    small_s, small_kib = timed_refusal(tmp_path, 10_000)
    large_s, large_kib = timed_refusal(tmp_path, 100_000)
    # Quadratic work would be 100x (it was 45 s and 11.6 GiB at 10^4); linear is 10x plus the start-up.
    assert large_s < 15 * max(small_s, 0.05) and large_s < 30, (small_s, large_s)
    assert large_kib < 1024 * 1024, large_kib  # under 1 GiB at 10^5 profiles
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, words, where", [
    ('[{"name": "a", "exporter": "torchscript",\n "rtol": 1e400}]', "number out of range", "1e400"),
    ('[{"name": "a", "exporter": "torchscript",\n "name": "b"}]', 'duplicate object key "name"', '"name": "b"'),
])
def test_text_that_is_not_strict_json_names_the_file_the_place_and_the_problem(tmp_path, text, words, where):
    profiles, stderr = refused(tmp_path, text)
    assert f"the profile file {profiles} is not JSON: " in stderr and words in stderr, stderr
    assert f"at byte offset {text.index(where)}" in stderr, stderr
