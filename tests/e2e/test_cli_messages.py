"""What the command line says about itself, on the built binary: `--version`, the exit codes and tested
profiles in `--help` (the core's own tables, as the Python package reads them), every numeric flag's bounds
in words (`run --jobs`, `run --memory-limit`, `matrix --jobs`, `matrix --timeout`, `execute --timeout`: no
NaN), the nearest flag or command to a mistyped one, a provider this build cannot run refused before any
export, and the core's hints spelled as flags. Each refusal is a usage error (exit 2) that writes nothing;
output that cannot be written (standard output on /dev/full) is an error (exit 1), never a pass."""
import json
import re
import subprocess
import sys

import pytest

from conftest import BUILD, CLI, run_cli
from support import write_json

sys.path.insert(0, str(BUILD / "python"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402


def test_version_names_the_build_and_the_formats_it_reads_and_writes():
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"nnx-conformance {nnx.__version__} (records {ec.FORMAT}, "
                                   "nnx.module-conformance/1, nnx.model-conformance/1; runtime matrices nnx.runtime-matrix/1)")


def test_help_lists_every_exit_code_and_the_tested_profiles():
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    codes = dict((name, int(code)) for code, name in re.findall(r"^  (\d+)  ([a-z-]+) \(stage", done.stdout, re.M))
    # the brief's nine (the Python vocabulary's), and the successor format's classes from 19 up
    assert codes == {**dict(ec.EXIT_CODES), "tool-error": 19}
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


@pytest.mark.parametrize("args, flag, value, words", [
    (["run", "--output", "OUT"], "--memory-limit", "0", "must be at least 1, not 0"),
    (["run", "--output", "OUT"], "--memory-limit", "lots", "must be a whole number of at least 1, not 'lots'"),
    (["execute", "r.json", "root"], "--timeout", "0", "must be a number of seconds from 0.1 to 604800, not 0"),
    (["execute", "r.json", "root"], "--timeout", "nan", "must be a number of seconds from 0.1 to 604800, not 'nan'"),
    (["execute", "r.json", "root"], "--timeout", "1e9", "must be a number of seconds from 0.1 to 604800, not 1e9"),
])
def test_every_other_numeric_flag_says_its_bound_in_words(tmp_path, args, flag, value, words):
    out = tmp_path / "out" / "r.json"
    done = run_cli(*[out if a == "OUT" else a for a in args], flag, value)
    assert done.returncode == 2
    assert done.stderr.strip() == f"nnx-conformance: usage error: {flag}: {words} (see --help)"
    assert "not in range" not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, nearest", [
    (["run", "--outptu", "r.json"], "--output"),
    (["run", "--output", "r.json", "--proflie", "feedfwd-fp32-dynamo"], "--profile"),
    (["run", "--output", "r.json", "--profil", "feedfwd-fp32-dynamo"], "--profile"),
    (["execute", "r.json", "root", "--refrence", "torch"], "--reference"),
])
def test_a_mistyped_flag_is_answered_with_the_nearest_one(tmp_path, args, nearest):
    done = run_cli(*args)
    assert done.returncode == 2
    assert f"did you mean {nearest}?" in done.stderr, done.stderr


@pytest.mark.parametrize("command, nearest", [("rnu", "run"), ("valdate", "validate"), ("exeucte", "execute"),
                                              ("matrx", "matrix")])
def test_a_mistyped_command_is_answered_with_the_nearest_one(tmp_path, command, nearest):
    done = run_cli(command, tmp_path / "r.json")
    assert done.returncode == 2
    assert f"unknown command or argument: {command}" in done.stderr, done.stderr
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


def cuda_profile_file(tmp_path):
    profile = {"name": "on-cuda", "exporter": "torchscript", "provider": "CUDAExecutionProvider"}
    return write_json(tmp_path / "p.json", [profile])


def test_a_provider_this_build_cannot_run_is_refused_before_any_export(tmp_path):
    done = run_cli("run", "--profile-file", cuda_profile_file(tmp_path), "--output", tmp_path / "out" / "r.json")
    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stderr.strip()
    assert message.startswith('nnx-conformance: usage error: profile "on-cuda": provider CUDAExecutionProvider is '
                              "not available in ONNX Runtime 1.30.0 ("), message
    available = re.search(r"; available: ([^)]*)\)", message).group(1).split(", ")
    assert "CPUExecutionProvider" in available and "CUDAExecutionProvider" not in available, available
    assert message.endswith("): run it on CPUExecutionProvider, or name a library built with CUDAExecutionProvider "
                            "(--onnxruntime PATH)"), message
    assert not (tmp_path / "out").exists(), "nothing exported, no folder made"


def test_a_provider_whose_runtime_cannot_open_is_left_to_the_dependencies_stage(tmp_path):
    (tmp_path / "bad.so").write_bytes(b"not a library")
    done = run_cli("run", "--profile-file", cuda_profile_file(tmp_path), "--output", tmp_path / "r.json",
                   "--onnxruntime", tmp_path / "bad.so")
    assert done.returncode == 10, done.stdout + done.stderr
    record = json.loads((tmp_path / "r.json").read_text())["profiles"][0]
    assert record["failure"] == "missing-dependency" and record["stages"]["export"]["status"] == "not_run"


def test_the_cores_hints_name_the_command_lines_flags(tmp_path):
    huge = {"name": "huge", "exporter": "torchscript", "batches": list(range(4033, 4097)),
            "model": {"input_dim": 4096, "hidden_dims": [8], "output_dim": 2}}
    done = run_cli("run", "--profile-file", write_json(tmp_path / "p.json", [huge]), "--output", tmp_path / "r.json")
    assert done.returncode == 2, done.stderr
    assert "half of the memory available; --memory-limit MIB sets another" in done.stderr
    assert "memory_limit" not in done.stderr
    (tmp_path / "root").mkdir()
    done = run_cli("matrix", tmp_path / "r.json", tmp_path / "root", "--output", tmp_path / "m.json")
    assert done.returncode == 2
    assert "no runtime: name one or more with --onnxruntime PATH or --onnxruntime-version X.Y.Z" in done.stderr
    done = run_cli("matrix", tmp_path / "r.json", tmp_path / "root", "--output", tmp_path / "m.json",
                   "--onnxruntime-version", "1234.0.0")
    assert done.returncode == 2, done.stderr
    assert '--onnxruntime-version "1234.0.0" is not a release number X.Y.Z' in done.stderr
