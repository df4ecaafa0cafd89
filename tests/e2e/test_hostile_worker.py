"""Issue point 4 — a worker killed by a signal, hanging past the timeout, writing more output than a bound,
or answering malformed JSON: a classified failure with a clear detail, a valid record still written, and
no process left behind.

The test faults of the stand-in worker tests/fakes/faulty_worker.py (the real worker with a fault of
tests/fakes/faults.py: crash, hang, garbage, flood; conftest.fault_env) are used where they produce the
misbehaviour; a hostile stand-in worker (NNX_WORKER_SCRIPT, tests/e2e/hostile_support.py) where they
cannot: an answer line beyond the response bound, output without end, a child left in the worker's
process group. Every run is the real CLI; "no process left" is checked from /proc with a marker every
descendant inherits.
"""
import subprocess
import sys
import time

from conftest import CLI, fault_env
from hostile_support import (TORCHSCRIPT, assert_no_process_left, assert_valid_report, cli, hostile_worker,
                                  marked_env, only_record)
from support import stage_statuses

HANG_TIMEOUT_SECONDS = 20  # the dependencies request (importing torch) must fit in it too


def run_failing_export(tmp_path, extra_env, timeout=900):
    env, marker = marked_env(extra_env)
    started = time.monotonic()
    done = cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT, env=env, timeout=timeout)
    elapsed = time.monotonic() - started
    assert done.returncode == 11, done.stdout + done.stderr
    assert "failed (export-error)" in done.stdout and "exit code: 11" in done.stdout
    record = only_record(tmp_path / "r.json")
    assert record["status"] == "failed" and record["failure"] == "export-error" and record["level"] == "none"
    assert stage_statuses(record) == ["passed", "failed", "not_run", "not_run", "not_run"]
    assert record["model_state"] is None
    assert_valid_report(tmp_path / "r.json")
    assert_no_process_left(marker)
    return record["stages"]["export"]["detail"], elapsed


def test_a_worker_killed_by_a_signal(tmp_path):
    detail, _ = run_failing_export(tmp_path, fault_env("crash"))
    assert "was killed by signal SIGKILL" in detail["error"] and "before answering 'export'" in detail["error"]


def test_a_worker_hanging_past_the_configured_timeout(tmp_path):
    detail, elapsed = run_failing_export(tmp_path, fault_env("hang",
                                                             NNX_WORKER_TIMEOUT_SECONDS=HANG_TIMEOUT_SECONDS))
    assert (f"did not answer 'export' within {HANG_TIMEOUT_SECONDS * 1000} ms; its process group was killed"
            in detail["error"])
    assert HANG_TIMEOUT_SECONDS <= elapsed < 2 * HANG_TIMEOUT_SECONDS + 30


def test_a_worker_answering_malformed_json(tmp_path):
    detail, _ = run_failing_export(tmp_path, fault_env("garbage"))
    assert "malformed response to 'export' (not JSON" in detail["error"]
    assert "<html>this is not JSON" in detail["error"], "the first bytes are shown"


def test_a_worker_writing_more_output_than_the_bound(tmp_path):
    """The flood fault writes 64 MiB on stdout while exporting; with a 16 MiB bound the worker is stopped."""
    detail, _ = run_failing_export(tmp_path, fault_env("flood", NNX_WORKER_MAX_OUTPUT_BYTES=16 << 20))
    assert "bytes on stdout/stderr while answering 'export', more than the bound of 16777216 bytes" in detail["error"]
    assert "nnx test fault 'flood'" in detail["log"], "the last lines of the output are kept"
    assert len(detail["log"]) < 64 << 10


def test_an_answer_longer_than_the_response_bound(tmp_path):
    """A hostile worker answers the export with a line that never ends (beyond the 16 MiB bound of an answer
    line: its tensors are frames after it, worker/TENSORS.md "Tensor frames")."""
    detail, _ = run_failing_export(tmp_path, hostile_worker(tmp_path, "response-flood"))
    assert "response to 'export' exceeds 16777216 bytes" in detail["error"]


def test_output_without_end_is_bounded_in_memory_and_stopped_at_the_bound(tmp_path):
    """A hostile worker writes to stdout forever: the core keeps a bounded tail (its peak memory stays far
    below what it was sent) until the bound stops the worker. Measured in a wrapper process, so that the
    peak covers only this run's processes (the CLI and the small hostile worker, no torch)."""
    env, marker = marked_env({**hostile_worker(tmp_path, "stdout-forever"),
                              "NNX_WORKER_MAX_OUTPUT_BYTES": 2 << 30})
    wrapper = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", wrapper, str(CLI), "run", "--output", str(tmp_path / "r.json"),
                           "--profile", TORCHSCRIPT], capture_output=True, text=True, env=env, timeout=600)
    code, peak_kib = map(int, done.stdout.split())
    assert code == 11, done.stderr
    detail = only_record(tmp_path / "r.json")["stages"]["export"]["detail"]
    assert "more than the bound of 2147483648 bytes" in detail["error"]
    assert peak_kib < 512 * 1024, f"peak RSS {peak_kib} KiB after 2 GiB of output"
    assert_valid_report(tmp_path / "r.json")
    assert_no_process_left(marker)


def test_a_child_left_in_the_workers_process_group_is_killed_too(tmp_path):
    """A hostile worker starts a child (sleep 600) in its process group, then dies of SIGSEGV."""
    pidfile = tmp_path / "pids"
    detail, _ = run_failing_export(tmp_path, {**hostile_worker(tmp_path, "grandchild-then-segv"),
                                              "NNX_HOSTILE_PIDFILE": pidfile})
    assert "was killed by signal SIGSEGV" in detail["error"]
    worker_pid, child_pid = map(int, pidfile.read_text().split())
    for pid in (worker_pid, child_pid):
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            continue
        assert state == "Z", f"pid {pid} is still alive (state {state})"
