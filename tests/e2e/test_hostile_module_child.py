"""The forked child that runs a module (worker/nnx_worker_fork.py) cannot be held by the module: it has no
standard input, so a leftover input() or breakpoint() fails at once, saying so; a process it leaves running (a
data-loader's prefetcher) holding its pipes does not hold the export, which ends when the module's process does,
and the process left behind is killed; what a module prints is kept bounded as it is written (the worker's peak
memory does not grow with it). Real torch, the real worker,
real ONNX Runtime."""
import json
import time

import pytest

from conftest import REPO, require_runtime, run_cli
from hostile_support import assert_no_process_left, cli, marked_env, processes_with
from module_support import conv_bn_profile, write_profiles

WORKER_MODELS = REPO / "tests" / "models" / "worker_models.py"
FACTORIES = f'''
import os
import sys
sys.path.insert(0, {str(WORKER_MODELS.parent)!r})
from worker_models import conv_bn


def asks():
    input("continue? ")
    return conv_bn()


def stops():
    breakpoint()
    return conv_bn()


def leaves_helpers():
    import multiprocessing
    import subprocess
    import time

    multiprocessing.Process(target=time.sleep, args=(600,)).start()  # forked: holds every pipe of the child
    subprocess.Popen(["sleep", "600"], stdout=sys.stdout, pass_fds=(sys.stdout.fileno(),))
    return conv_bn()


def prints():
    chunk = b"x" * (1 << 20)
    for _ in range(400):
        os.write(1, chunk)
    os.write(1, b"\\nthe module's last line\\n")
    return conv_bn()


def worker_peak():
    with open(f"/proc/{{os.getppid()}}/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["NNX_TEST_PEAKS"], "a") as out:
        out.write(peak + "\\n")
    return conv_bn()


def reads():
    sys.stdin.read()
    return conv_bn()
'''


def run_factory(tmp_path, factory, timeout=240):
    require_runtime()
    (tmp_path / "factories.py").write_text(FACTORIES)
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(module=f"{tmp_path / 'factories.py'}:{factory}")])
    start = time.monotonic()
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json", timeout=timeout)
    seconds = time.monotonic() - start
    (record,) = json.loads((tmp_path / "out" / "report.json").read_text())["profiles"]
    return done, record, seconds


@pytest.mark.parametrize("factory", ["asks", "stops", "reads"])
def test_a_module_that_waits_for_input_fails_at_once_saying_it_has_none(tmp_path, factory):
    done, record, seconds = run_factory(tmp_path, factory)
    assert done.returncode == 11, done.stdout + done.stderr
    assert "the module's process has no standard input" in record["stages"]["export"]["detail"]["error"]
    assert seconds < 120


def test_a_process_the_module_leaves_running_does_not_hold_the_export(tmp_path):
    require_runtime()
    (tmp_path / "factories.py").write_text(FACTORIES)
    profiles = write_profiles(tmp_path / "p.json",
                              [conv_bn_profile(module=f"{tmp_path / 'factories.py'}:leaves_helpers")])
    env, marker = marked_env()
    start = time.monotonic()
    done = cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json", env=env, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - start < 120
    assert not [p for p in processes_with(marker) if "sleep" in p[1] or "multiprocessing" in p[1]]
    assert_no_process_left(marker)


def test_what_a_module_prints_is_kept_bounded_as_it_is_written(tmp_path):
    require_runtime()
    (tmp_path / "factories.py").write_text(FACTORIES)
    peaks = tmp_path / "peaks.txt"
    profiles = write_profiles(tmp_path / "p.json", [
        conv_bn_profile(name=name, module=f"{tmp_path / 'factories.py'}:{factory}")
        for name, factory in (("before", "worker_peak"), ("printer", "prints"), ("after", "worker_peak"))])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json", "--jobs", "1",
                   env={"NNX_TEST_PEAKS": str(peaks)}, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    before, after = (int(kib) for kib in peaks.read_text().split())
    assert after - before < 64 << 10, f"the worker's peak grew by {(after - before) >> 10} MiB"
    records = {r["profile"]: r for r in json.loads((tmp_path / "report.json").read_text())["profiles"]}
    assert records["printer"]["status"] == "passed"
