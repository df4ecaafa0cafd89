"""Quiet, true output (doc/cli.md): ONNX Runtime's own log lines ("[E:onnxruntime:, sequential_executor.cc:...]",
ANSI-coloured, with a time and a thread) are never printed on stderr (src/runtime/runtime_log.h), while the
failing call's message stays in the record; the renderings' file lines (`html:`, `markdown:`) come after the
result lines; `run --help` points to checking your own model.

The run fails for real inside ONNX Runtime: the stand-in worker (tests/fakes/faulty_worker.py, fault
"runtime-fails") exports a graph holding an impossible Reshape, which the real runtime refuses at every case."""
import json

import pytest

from conftest import fault_env, run_cli

TORCHSCRIPT = "feedfwd-fp32-torchscript"


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("quiet")
    done = run_cli("run", "--output", out / "r.json", "--profile", TORCHSCRIPT, "--html", out / "r.html",
                   "--markdown", out / "r.md", env=fault_env("runtime-fails"))
    return done, json.loads((out / "r.json").read_text())["profiles"][0], out


def test_a_run_failing_inside_onnx_runtime_prints_no_raw_runtime_log_line(failing_run):
    done, record, _ = failing_run
    assert done.returncode == 18 and record["failure"] == "runtime-error", done.stdout + done.stderr
    assert "onnxruntime:" not in done.stderr and "\x1b[" not in done.stderr, done.stderr
    assert "sequential_executor" not in done.stderr + done.stdout
    # What the runtime said is kept where it belongs: each case's detail, from the failing call's status.
    assert all("Non-zero status code returned while running Reshape node" in case["detail"]
               for case in record["input_cases"]), record["input_cases"]


def test_the_file_lines_come_after_the_result_lines(failing_run):
    done, _, out = failing_run
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [TORCHSCRIPT, "report", "artifacts", "html", "markdown",
                                                      "exit code"], lines
    assert lines[3] == f"html: {out / 'r.html'}" and lines[4] == f"markdown: {out / 'r.md'}"


def test_run_help_points_to_checking_your_own_model():
    done = run_cli("run", "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "your own model's (--profile-file with a module profile, doc/profile-files.md" in text, done.stdout
    assert "nnx.check_module" in text, done.stdout
