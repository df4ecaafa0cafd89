"""Hangs and orphans (doc/safety.md, "Time and memory limits"; doc/architecture.md, "Signals"): a record whose
model.onnx is an endless Loop (M = 2^62, hashes made consistent as a tamperer would) is ended by execute's
per-case timeout, by SIGTERM and by SIGINT, from the command line and from the Python API; a SIGKILLed matrix
leaves no child and no work folder; a child started from a thread outlives the thread.
"""
import json
import os
import signal
import subprocess
import sys
import time

import onnx
import pytest
from onnx import TensorProto, helper

from conftest import BUILD, BUNDLED_ORT, CLI, run_cli
from hostile_support import (TORCHSCRIPT, assert_no_process_left, copy_report, finish, marked_env,
                             processes_with, start_cli, wait_for)
from support import built_tool, rehash

LIFELINE = BUILD / "nnx_lifeline"


def endless_loop_model() -> onnx.ModelProto:
    """features [batch, 4] -> logits [batch, 2], where logits depend on a Loop of 2^62 iterations."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["s_in", "one"], ["s_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [])],
        [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    nodes = [
        helper.make_node("ReduceSum", ["features"], ["s0"], keepdims=0),
        helper.make_node("Loop", ["trips", "go", "s0"], ["s_end"], body=body),
        helper.make_node("MatMul", ["features", "w"], ["mm"]),
        helper.make_node("Mul", ["s_end", "zero"], ["z"]),
        helper.make_node("Add", ["mm", "z"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "endless",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 2])],
        [helper.make_tensor("trips", TensorProto.INT64, [], [2 ** 62]),
         helper.make_tensor("go", TensorProto.BOOL, [], [True]),
         helper.make_tensor("w", TensorProto.FLOAT, [4, 2], [0.0] * 8),
         helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.fixture()
def endless_record(both_profiles, tmp_path):
    """(record file, artifact root): the torchscript record with its model.onnx an endless Loop, rehashed."""
    report, root = copy_report(both_profiles, tmp_path)
    record = next(r for r in json.loads(report.read_text())["profiles"] if r["profile"] == TORCHSCRIPT)
    onnx.save(endless_loop_model(), str(root / TORCHSCRIPT / "model.onnx"))
    rehash(record, root)
    path = tmp_path / "endless.json"
    path.write_text(json.dumps(record))
    return path, root


def test_execute_of_an_endless_loop_ends_at_its_timeout_as_a_runtime_error(endless_record, tmp_path):
    record, root = endless_record
    started = time.monotonic()
    done = run_cli("execute", record, root, "--output", tmp_path / "out.json", "--timeout", "0.5", timeout=120)
    took = time.monotonic() - started
    assert done.returncode == 18, done.stdout + done.stderr  # runtime-error
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["failure"] == "runtime-error" and out["stages"]["parity"]["status"] == "failed"
    timed_out = [c for c in out["input_cases"] if c["outcome"] == "error"]
    assert len(timed_out) == 4, out["input_cases"]  # batches 1, 2, 3 and 7; width 5 is refused before it runs
    for case in timed_out:
        assert "(TIMEOUT)" in case["detail"] and "within 0.5 s" in case["detail"], case
    assert took < 4 * 0.5 + 15, f"four cases of 0.5 s took {took:.1f} s"
    assert run_cli("validate", tmp_path / "out.json").returncode == 0


def running_for(proc, seconds):
    """Waits until `proc` has used `seconds` of CPU time (it is then inside the endless run)."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu():
        fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    wait_for(lambda: proc.poll() is not None or cpu() >= seconds, 120, "the endless run to start")
    assert proc.poll() is None, proc.communicate()


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_an_endless_execute_within_a_second(endless_record, tmp_path, sig, code):
    record, root = endless_record
    env, _ = marked_env()
    proc = start_cli("execute", record, root, "--output", tmp_path / "out.json", env=env)
    running_for(proc, 1.0)
    sent = time.monotonic()
    os.kill(proc.pid, sig)
    rc, out, err = finish(proc, timeout=30)
    assert time.monotonic() - sent < 2.0, "the run must stop at the signal, not at its 600 s timeout"
    assert rc == code, out + err
    assert not (tmp_path / "out.json").exists(), "an interrupted execute writes nothing"


PYTHON_EXECUTE = """
import json, sys
import nnx.export_conformance as ec
record = json.load(open(sys.argv[1]))
try:
    ec.execute(record, sys.argv[2], reference="native")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
    sys.exit(42)
print("finished")
"""


def test_ctrl_c_ends_an_endless_execute_in_the_python_api(endless_record):
    record, root = endless_record
    env, _ = marked_env({"PYTHONPATH": str(BUILD / "python")})
    proc = subprocess.Popen([sys.executable, "-c", PYTHON_EXECUTE, str(record), str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    running_for(proc, 1.5)
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == 42 and out.strip() == "KeyboardInterrupt", out + err


def work_folders(tmpdir):
    return sorted(p.name for p in tmpdir.iterdir() if p.name.startswith("nnx-matrix-"))


def test_sigkill_of_a_running_matrix_leaves_no_child_and_no_work_folder(endless_record, tmp_path):
    record, root = endless_record
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env, marker = marked_env({"TMPDIR": tmpdir})
    proc = start_cli("matrix", record, root, "--output", tmp_path / "m.json", "--onnxruntime", BUNDLED_ORT, env=env)
    wait_for(lambda: any("matrix-cell" in cmd for _, cmd in processes_with(marker)), 60, "the cell to start")
    time.sleep(1.0)  # the cell is in the endless run now
    assert len(work_folders(tmpdir)) == 1
    proc.kill()
    proc.wait()
    assert_no_process_left(marker, grace=2.0)
    wait_for(lambda: work_folders(tmpdir) == [], 2.0, "the dead matrix's work folder to be removed")


def test_the_next_matrix_sweeps_the_work_folder_of_a_dead_one_and_keeps_a_live_ones(endless_record, tmp_path):
    record, root = endless_record
    tmpdir = tmp_path / "tmp"
    dead, alive = tmpdir / "nnx-matrix-dead00", tmpdir / "nnx-matrix-alive0"
    ended = subprocess.Popen(["true"])
    ended.wait()
    for folder, pid in ((dead, ended.pid), (alive, os.getpid())):
        folder.mkdir(parents=True)
        (folder / "owner").write_text(f"{pid}\n")
        (folder / "cell-0").mkdir()
    env, _ = marked_env({"TMPDIR": tmpdir})
    done = subprocess.run([str(CLI), "matrix", str(record), str(root), "--output", str(tmp_path / "m.json"),
                           "--onnxruntime", str(BUNDLED_ORT), "--timeout", "3"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 18, done.stdout + done.stderr  # the cell killed for its time: a runtime-error
    assert work_folders(tmpdir) == ["nnx-matrix-alive0"]


def test_a_child_started_from_a_thread_outlives_the_thread_and_dies_with_the_process():
    parent = subprocess.Popen([str(built_tool(LIFELINE)), "parent"], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert parent.stdout.readline().strip() == "thread ended"
    time.sleep(1.0)
    assert alive(child), "the child must not die with the thread that started it"
    parent.kill()
    parent.wait()
    wait_for(lambda: not alive(child), 2.0, "the child to end with its parent")


def alive(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_profile_over_the_memory_limit_is_refused_before_anything_runs(tmp_path):
    """Cases of 2^24 values cost about 576 MiB each in the torch reference: over a quarter of 1024 MiB."""
    profile = {"name": "wide-ts", "exporter": "torchscript", "batches": [4096, 1024],
               "model": {"input_dim": 4096, "hidden_dims": [8], "output_dim": 2}}
    (tmp_path / "p.json").write_text(json.dumps([profile]))
    done = run_cli("run", "--profile-file", tmp_path / "p.json", "--output", tmp_path / "r.json",
                   "--memory-limit", "1024", timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'profile "wide-ts", input case batch-4096: its torch reference needs about 576.0 MiB' in done.stderr
    assert ("over the per-case limit of 256.0 MiB (memory limit 1024.0 MiB: the limit given; --memory-limit MIB "
            "sets another" in done.stderr)
    assert "batch-1024" not in done.stderr, "a case within the limit is not named"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"], "nothing is written"
