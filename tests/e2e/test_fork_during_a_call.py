"""A process forked (os.fork, multiprocessing) while another thread's run is in flight can still call the core:
the lock that serialises runs and executes (src/python/bindings.cc) is the child's own there, not a copy held by
a thread the child does not have. Real torch, the real worker, real ONNX Runtime."""
import json
import os
import sys
import threading
import time

from conftest import BUILD, require_runtime
from hostile_support import copy_report

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

TORCHSCRIPT = "feedfwd-fp32-torchscript"


def wait_for_child(pid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


def test_a_child_forked_during_a_run_can_execute(both_profiles, tmp_path):
    require_runtime()
    report_path, root = copy_report(both_profiles, tmp_path)
    record = json.loads(report_path.read_text())["profiles"][0]
    run = threading.Thread(target=ec.run_profile, args=(TORCHSCRIPT, tmp_path / "running"), kwargs={"force": True})
    run.start()
    time.sleep(0.5)
    assert run.is_alive(), "the run ended before the fork: nothing was in flight"
    pid = os.fork()
    if pid == 0:
        try:
            again = ec.execute(record, root)
            os._exit(0 if again["status"] == "passed" else 3)
        finally:
            os._exit(4)
    status = wait_for_child(pid, timeout=120)
    run.join()
    assert status is not None, "the forked child's execute waited for a call that will never end in it"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
