"""What the command line says about itself, on the built binary: `--version`, the exit codes and tested
profiles in `--help` (the core's own tables, as the Python package reads them), the numeric flags' bounds in
words (`run --jobs`, `matrix --jobs`, `matrix --timeout`: no NaN) and the nearest flag to a mistyped one.
Each refusal is a usage error (exit 2) that writes nothing; output that cannot be written (standard output
on /dev/full) is an error (exit 1), never a pass."""
import re
import subprocess
import sys

import pytest

from conftest import BUILD, CLI, run_cli

sys.path.insert(0, str(BUILD / "python"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402


def test_version_names_the_build_and_the_formats_it_reads_and_writes():
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"nnx-conformance {nnx.__version__} (records {ec.FORMAT}, "
                                   "runtime matrices nnx.runtime-matrix/1)")


def test_help_lists_every_exit_code_and_the_tested_profiles():
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    codes = dict((name, int(code)) for code, name in re.findall(r"^  (\d+)  ([a-z-]+) \(stage", done.stdout, re.M))
    assert codes == dict(ec.EXIT_CODES)
    for code in ("0", "1", "2", "128+N"):
        assert re.search(rf"^  {re.escape(code)} ", done.stdout, re.M), code
    profiles = done.stdout.split("Tested profiles:")[1].split()
    assert profiles == list(ec.PROFILES)


@pytest.mark.parametrize("value, words", [
    ("0", "--jobs: must be at least 1, not 0"),
    ("-3", "--jobs: must be at least 1, not -3"),
    ("1.5", "--jobs: must be a whole number of at least 1, not '1.5'"),
    ("many", "--jobs: must be a whole number of at least 1, not 'many'"),
    ("99999999999", "--jobs: must be at most 2147483647, not 99999999999"),
])
def test_jobs_out_of_bounds_is_refused_in_words_and_writes_nothing(tmp_path, value, words):
    done = run_cli("run", "--output", tmp_path / "out" / "r.json", "--jobs", value)
    assert done.returncode == 2
    assert done.stderr.strip() == f"nnx-conformance: usage error: {words} (see --help)"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "0.05", "1e9", "soon"])
def test_a_matrix_timeout_that_is_not_a_finite_number_of_seconds_in_range_is_refused(tmp_path, value):
    done = run_cli("matrix", tmp_path / "r.json", tmp_path, "--output", tmp_path / "m.json",
                   "--onnxruntime-version", "1.30.0", "--timeout", value)
    assert done.returncode == 2
    shown = value if value[0].isdigit() else f"'{value}'"
    assert done.stderr.strip() == ("nnx-conformance: usage error: --timeout: must be a number of seconds from 0.1 to "
                                   f"604800, not {shown} (see --help)")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("value, words", [("0", "must be at least 1, not 0"), ("257", "must be at most 256, not 257"),
                                          ("2.5", "must be a whole number from 1 to 256, not '2.5'")])
def test_matrix_jobs_out_of_bounds_is_refused_in_words(tmp_path, value, words):
    done = run_cli("matrix", tmp_path / "r.json", tmp_path, "--output", tmp_path / "m.json",
                   "--onnxruntime-version", "1.30.0", "--jobs", value)
    assert done.returncode == 2
    assert done.stderr.strip() == f"nnx-conformance: usage error: --jobs: {words} (see --help)"


@pytest.mark.parametrize("args, nearest", [
    (["run", "--outptu", "r.json"], "--output"),
    (["run", "--output", "r.json", "--profil", "feedfwd-fp32-dynamo"], "--profile"),
    (["execute", "r.json", "root", "--refrence", "torch"], "--reference"),
])
def test_a_mistyped_flag_is_answered_with_the_nearest_one(tmp_path, args, nearest):
    done = run_cli(*args)
    assert done.returncode == 2
    assert f"did you mean {nearest}?" in done.stderr, done.stderr


def test_a_flag_far_from_every_known_one_gets_no_guess(tmp_path):
    done = run_cli("run", "--output", tmp_path / "r.json", "--zzzzzz")
    assert done.returncode == 2
    assert "--zzzzzz" in done.stderr and "did you mean" not in done.stderr


@pytest.mark.parametrize("args", [["report", "REPORT"], ["validate", "REPORT"], ["--version"]])
def test_output_that_cannot_be_written_is_an_error_not_a_pass(both_profiles, args):
    _, report, artifacts = both_profiles
    assert report is not None
    path = artifacts.parent / "report.json"
    argv = [str(path) if a == "REPORT" else a for a in args]
    with open("/dev/full", "w") as full:
        done = subprocess.run([str(CLI), *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "cannot write to standard output" in done.stderr
    readable = subprocess.run([str(CLI), *argv], capture_output=True, text=True, timeout=120)
    assert readable.returncode == 0 and readable.stdout, readable.stderr
