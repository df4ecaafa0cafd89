"""The forked child that runs a module (worker/nnx_worker_fork.py) cannot be held by the module: it has no
standard input, so a leftover input() or breakpoint() fails at once, saying so. Real torch, the real worker,
real ONNX Runtime."""
import json
import time

import pytest

from conftest import REPO, require_runtime, run_cli
from module_support import conv_bn_profile, write_profiles

WORKER_MODELS = REPO / "tests" / "models" / "worker_models.py"
FACTORIES = f'''
import sys
sys.path.insert(0, {str(WORKER_MODELS.parent)!r})
from worker_models import conv_bn


def asks():
    input("continue? ")
    return conv_bn()


def stops():
    breakpoint()
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
