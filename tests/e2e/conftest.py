"""Shared fixtures for the end-to-end tests: the built binaries and a way to run them.

Every test here uses the real components: the C++ core, the real PyTorch exporters in the worker, the
real ONNX checker and the real ONNX Runtime library. With NNX_REQUIRE_ONNX_RUNTIME=1 (as `make test`
sets it) a missing runtime fails the tests instead of skipping them.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("NNX_BUILD_DIR", REPO / "build"))
CLI = BUILD / "nnx-conformance"
RUN_PROFILE_TOOL = BUILD / "nnx_run_profile"
BUNDLED_ORT = REPO / ".deps" / "onnxruntime" / "lib" / "libonnxruntime.so.1"
FAULTY_WORKER = REPO / "tests" / "fakes" / "faulty_worker.py"
ORIGINAL_VENV = REPO / "build" / "original-venv"
INSTALL_ORIGINAL = REPO / "scripts" / "install_original.sh"
# The revision both_profiles records (`--source-revision`), so its records do not depend on the checkout's
# commit: tests/golden/<CPU class>/ holds them (golden_records.py).
PINNED_SOURCE_REVISION = "feedc0de"


def require_runtime():
    if not BUNDLED_ORT.exists() and not os.environ.get("NNX_ONNXRUNTIME_LIBRARY"):
        if os.environ.get("NNX_REQUIRE_ONNX_RUNTIME") == "1":
            pytest.fail("ONNX Runtime library is missing and NNX_REQUIRE_ONNX_RUNTIME=1")
        pytest.skip("ONNX Runtime library is missing")


def fault_env(name, **extra) -> dict:
    """Environment entries that put the stand-in worker tests/fakes/faulty_worker.py (the real worker with
    the test fault `name` of tests/fakes/faults.py) in the exporter worker's place, through the product's
    NNX_WORKER_SCRIPT; `extra` adds more entries (values as strings)."""
    env = {"NNX_WORKER_SCRIPT": str(FAULTY_WORKER), "NNX_TEST_FAULT": name}
    env.update({key: str(value) for key, value in extra.items()})
    return env


def run_cli(*args, env=None, timeout=900):
    require_runtime()
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=full_env,
                          timeout=timeout)


def run_custom_profile(profile: dict, root: Path, env=None):
    """Runs one custom profile through the core (test tool) and returns (exit code, record)."""
    require_runtime()
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run([str(RUN_PROFILE_TOOL), json.dumps(profile), str(root)], capture_output=True,
                          text=True, env=full_env, timeout=900)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="session")
def both_profiles(tmp_path_factory):
    """One real run of both tested profiles, its source pinned (PINNED_SOURCE_REVISION): (completed process,
    report, artifacts folder)."""
    out = tmp_path_factory.mktemp("both")
    done = run_cli("run", "--output", out / "report.json", "--source-revision", PINNED_SOURCE_REVISION)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    return done, report, out / "report-artifacts"


@pytest.fixture(scope="module")
def original_python():
    """build/original-venv's interpreter (the published original, thekaveh-nnx 0.4.1, as a black box); made
    with scripts/install_original.sh when missing (offline from the wheel cache). A venv that cannot be made
    fails the test: it never skips."""
    python = ORIGINAL_VENV / "bin" / "python"
    if not python.exists():
        done = subprocess.run(["bash", str(INSTALL_ORIGINAL)], capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, f"scripts/install_original.sh failed:\n{done.stdout}{done.stderr}"
    assert python.exists(), f"the original's venv is missing ({ORIGINAL_VENV}): run scripts/install_original.sh"
    return python
