"""Helpers shared by the tests/e2e/test_hostile_*.py files (this module holds no tests).

Everything here works on real processes: a marker in the environment that every descendant of a run
inherits (so a test can prove, from /proc, that no process of the run is left), a real CLI started with
Popen (so a test can signal it) — or, to hold a run between verification and session creation, the same
command line with the pausing fake behind its runtime seam —, and a hostile worker script that stands in for the Python exporter worker
(NNX_WORKER_SCRIPT) where a misbehaviour cannot be produced by the test faults of the stand-in worker
tests/fakes/faulty_worker.py (conftest.fault_env).
"""
import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import BUILD, CLI, REPO, fault_env, require_runtime
from support import copy_artifacts, write_json

TORCHSCRIPT = "feedfwd-fp32-torchscript"
DYNAMO = "feedfwd-fp32-dynamo"
MARK = "NNX_HOSTILE_TEST_MARK"
PAUSE = "NNX_TEST_PAUSE_AFTER_VERIFY"  # read by tests/fakes/pausing_runtime.cc only
PAUSING_CLI = BUILD / "nnx_conformance_pausing"


def marked_env(extra=None):
    """(environment for a child, marker): every descendant inherits MARK=marker. An NNX_TEST_FAULT in
    `extra` without an NNX_WORKER_SCRIPT of its own comes with the stand-in worker that implements it
    (conftest.fault_env): the product's worker has no faults."""
    marker = uuid.uuid4().hex
    extra = dict(extra or {})
    if extra.get("NNX_TEST_FAULT") and "NNX_WORKER_SCRIPT" not in extra:
        extra = {**fault_env(extra.pop("NNX_TEST_FAULT")), **extra}
    env = dict(os.environ)
    env.pop("NNX_TEST_FAULT", None)
    env.pop("NNX_TEST_PAUSE_AFTER_VERIFY", None)
    env[MARK] = marker
    env.update({k: str(v) for k, v in extra.items()})
    return env, marker


def processes_with(marker):
    """Live (not zombie) processes whose environment holds MARK=marker: [(pid, command line)]."""
    needle = f"{MARK}={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if stat[stat.rindex(")") + 2] == "Z":
                continue
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append((int(entry), cmdline.strip()))
        except (FileNotFoundError, ProcessLookupError, PermissionError, ValueError, IndexError):
            continue
    return found


def assert_no_process_left(marker, grace=5.0):
    deadline = time.monotonic() + grace
    while True:
        left = processes_with(marker)
        if not left:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"processes of the run are left behind: {left}")
        time.sleep(0.05)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def command_line(env):
    """The real CLI; with PAUSE in `env`, the same command line with the pausing fake behind its runtime
    seam (tests/tools/nnx_conformance_pausing.cc: it pauses between verification and session creation)."""
    return PAUSING_CLI if env.get(PAUSE) else CLI


def start_cli(*args, env):
    """The CLI as a child process (stdout and stderr captured), for tests that signal it."""
    require_runtime()
    return subprocess.Popen([str(command_line(env)), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def finish(proc, timeout=600):
    """(exit code, stdout, stderr) of a started CLI; kills it (and fails) when it does not end in time."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the CLI did not end within {timeout} s; stdout={out!r} stderr={err!r}")
    return proc.returncode, out, err


def cli(*args, env, timeout=900):
    require_runtime()
    return subprocess.run([str(command_line(env)), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout)


def only_record(report_path):
    report = json.loads(Path(report_path).read_text())
    (record,) = report["profiles"]
    return record


def assert_valid_report(report_path, env=None):
    done = cli("validate", report_path, env=env or dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr


def copy_report(both_profiles, tmp_path):
    """A private copy of the session's both-profiles report and artifacts: (report path, artifact root)."""
    done, report, artifacts = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    root = copy_artifacts(artifacts, tmp_path)
    return write_json(tmp_path / "report.json", report), root


def tree_digest(folder):
    """{relative path: (kind, bytes or link target)} of everything under folder, links never followed."""
    out = {}
    folder = Path(folder)
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(folder))
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir", None)
            else:
                out[rel] = ("file", p.read_bytes())
    return out


# A stand-in for worker/nnx_worker.py that misbehaves as NNX_HOSTILE_MODE says (protocol: worker/PROTOCOL.md).
HOSTILE_WORKER = r'''
import json, os, shutil, signal, subprocess, sys, time

MODE = os.environ["NNX_HOSTILE_MODE"]
response = os.fdopen(3, "wb", buffering=0)


def answer(obj):
    response.write((json.dumps(obj) + "\n").encode())


def signature(name, width):
    return [{"name": name, "dtype": "float", "shape": ["batch", width]}]


sys.path.insert(0, os.environ["NNX_HOSTILE_WIRE"])
from nnx_worker_tensors import read_message  # the worker's one tensor wire: a request's frames follow its line

while (request := read_message(sys.stdin.buffer)) is not None:
    op = request.get("op")
    if op == "dependencies":
        answer({"ok": True, "versions": {m: "0+hostile" for m in request["modules"]}, "problems": [],
                "environment": {"python": sys.version.split()[0], "platform": "hostile test worker"}})
    elif op == "export":
        out = request["output_dir"]
        os.makedirs(out, exist_ok=True)
        if MODE == "response-flood":          # an answer line longer than the core's response bound
            chunk = b"y" * (1 << 20)
            response.write(b'{"ok": true, "pad": "')
            while True:
                response.write(chunk)
        if MODE == "stdout-forever":          # output without end on stdout, never an answer
            chunk = b"z" * 65535 + b"\n"
            while True:
                os.write(1, chunk)
        if MODE == "grandchild-then-segv":    # leaves a child in its process group, then crashes
            child = subprocess.Popen(["sleep", "600"])
            with open(os.environ["NNX_HOSTILE_PIDFILE"], "w") as f:
                f.write(f"{os.getpid()} {child.pid}\n")
            os.kill(os.getpid(), signal.SIGSEGV)
        model = os.path.join(out, "model.onnx")
        if MODE == "symlinked-model":         # model.onnx is a link to a real model elsewhere
            os.symlink(os.environ["NNX_HOSTILE_MODEL"], model)
        else:
            shutil.copyfile(os.environ["NNX_HOSTILE_MODEL"], model)
        if MODE == "fifo-artifact":           # a FIFO nobody writes, next to a real model
            os.mkfifo(os.path.join(out, "model.onnx.data"))
        if MODE == "socket-artifact":         # a socket, next to a real model
            import socket
            here = os.getcwd()
            os.chdir(out)
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind("listener.sock")
            os.chdir(here)
        answer({"ok": True, "exception": None, "log": "", "warnings": [], "changed": [],
                "model_state": {"parameters": True, "gradients": True, "modes": True}, "wrote_model": True,
                "files": sorted(os.listdir(out))})
    elif op == "check":
        answer({"ok": True, "error": None, "opset": {"ai.onnx": 17}, "ir_version": 8, "producer": "hostile",
                "inputs": signature("features", 4), "outputs": signature("logits", 2), "external_data": []})
    else:
        answer({"ok": False, "error": "unknown op"})
'''


def hostile_worker(tmp_path, mode, model=None):
    """Environment entries that replace the exporter worker by the hostile script in `mode`."""
    script = tmp_path / "hostile_worker.py"
    script.write_text(HOSTILE_WORKER)
    env = {"NNX_WORKER_SCRIPT": str(script), "NNX_HOSTILE_MODE": mode, "NNX_HOSTILE_WIRE": str(REPO / "worker")}
    if model is not None:
        env["NNX_HOSTILE_MODEL"] = str(model)
    return env
