"""The portable wheel installed as a user would (doc/install.md): `make wheel`'s dist/nnx_conformance-*.whl.

A clean virtualenv in a temporary folder outside the checkout gets the repaired wheel with both extras; torch,
onnx, onnxscript, numpy and onnxruntime come offline from the lock's cached wheels (requirements.lock and
tests/original.lock as constraints, so every version and hash is the lock's), installed by the wheel tools'
uv (scripts/wheel-tools.lock), which hardlinks from its cache. Every command then runs from PATH with that
folder as its working directory and an environment holding nothing of this checkout: no NNX_* variable, no
PYTHONPATH or LD_LIBRARY_PATH, PATH = the virtualenv's bin and the system's. The wheel is made by the lane
(scripts/ci_evidence_lane.sh runs scripts/wheel.sh before pytest) or by `make wheel`.
"""
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from conftest import BUILD, REPO, require_runtime

CACHE = Path(os.environ.get("NNX_CACHE") or Path.home() / ".cache" / "nnx-conformance")
TOOLS = BUILD / "wheel-tools" / "bin"
PROFILES = ("feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo")


def the_wheel() -> Path:
    wheels = sorted((REPO / "dist").glob("nnx_conformance-*.whl"))
    assert len(wheels) == 1, f"dist/ holds {[w.name for w in wheels]}, not one wheel: run make wheel"
    return wheels[0]


def run(args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=3600, **kwargs)
    assert done.returncode == 0, f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(virtualenv, working folder, clean environment) with the wheel and both extras installed."""
    require_runtime()
    wheel = the_wheel()
    root = tmp_path_factory.mktemp("wheel-install")
    assert REPO not in root.parents, "the temporary folder is inside the checkout"
    venv, cwd = root / "venv", root / "work"
    cwd.mkdir()
    base = getattr(sys, "_base_executable", sys.executable)
    run([TOOLS / "uv", "venv", "--quiet", "--python", base, venv], env={**os.environ, "UV_NO_CONFIG": "1"})
    started = time.monotonic()
    run([TOOLS / "uv", "pip", "install", "--quiet", "--python", venv / "bin" / "python", "--offline", "--no-index",
         "--find-links", CACHE / "wheels", "--link-mode", "hardlink", f"{wheel}[onnx-runtime,onnx-dynamo]",
         "-c", REPO / "requirements.lock", "-c", REPO / "tests" / "original.lock"],
        env={**os.environ, "UV_NO_CONFIG": "1", "UV_CACHE_DIR": str(CACHE / "uv")}, cwd=cwd)
    print(f"\nwheel install: {wheel.name} and both extras in {time.monotonic() - started:.1f} s")
    # What a user's own shell would hand on, and nothing else: a list of what is kept, since a shell or make
    # also exports variables that name the checkout (`_`, the last command run: make's .venv/bin/python).
    env = {key: value for key, value in os.environ.items()
           if key in ("HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "TMPDIR", "SHELL") or key.startswith("LC_")}
    env.update(PATH=f"{venv / 'bin'}:/usr/bin:/bin", PWD=str(cwd))
    for key, value in env.items():
        assert str(REPO) not in value and str(BUILD) not in value, f"the environment names the checkout: {key}={value}"
    return venv, cwd, env


def command(installed, *args, check=True, **extra_env):
    venv, cwd, env = installed
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=3600, cwd=cwd,
                          env={**env, **extra_env})
    if check:
        assert done.returncode == 0, f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_is_manylinux_and_bundles_what_the_core_opens():
    wheel = the_wheel()
    assert "manylinux_2_3" in wheel.name, wheel.name
    shown = run([TOOLS / "auditwheel", "show", wheel], env={**os.environ, "PATH": f"{TOOLS}:{os.environ['PATH']}"})
    assert "consistent with the following platform tag" in shown.stdout and "manylinux_2_3" in shown.stdout, shown.stdout
    names = zipfile.ZipFile(wheel).namelist()
    for carried in ("nnx/_bin/nnx-conformance", "nnx/_libs/libopenblas.so.0", "nnx/_worker/nnx_worker.py",
                    "nnx/_scripts/check_export_conformance.py"):
        assert carried in names, f"the wheel lacks {carried}"
    grafted = [n for n in names if n.startswith("nnx_conformance.libs/")]
    for library in ("libcrypto", "libprotobuf-lite", "libgfortran"):
        assert any(library in n for n in grafted), f"auditwheel grafted no {library}: {grafted}"


def test_the_installed_command_runs_both_tested_profiles_from_path(installed):
    venv, cwd, _ = installed
    where = command(installed, "sh", "-c", "command -v nnx-conformance").stdout.strip()
    assert Path(where).parent == venv / "bin", where
    done = command(installed, "nnx-conformance", "run", "--output", "report.json",
                   *[a for p in PROFILES for a in ("--profile", p)])
    report = json.loads((cwd / "report.json").read_text())
    assert [r["profile"] for r in report["profiles"]] == list(PROFILES), done.stdout
    assert all(r["failure"] is None for r in report["profiles"]), done.stdout
    text = (cwd / "report.json").read_text()
    assert str(REPO) not in text and str(BUILD) not in text, "the installed command's report names the checkout"
    assert all(r["source"]["origin"] == "unknown" for r in report["profiles"]), "an installed copy claims a checkout"
    libraries = {r["versions"]["onnxruntime_library"] for r in report["profiles"]}
    assert all(library.startswith(str(venv)) for library in libraries), f"not the environment's onnxruntime: {libraries}"


def test_the_installed_command_checks_a_report_made_by_the_checkout(installed, both_profiles):
    done, report, artifacts = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    made = artifacts.parent / "report.json"
    command(installed, "nnx-conformance", "validate", made)
    command(installed, "nnx-conformance", "verify", made, artifacts)
    # The native reference's OpenBLAS is the wheel's copy (glibc's loader names each file it opens).
    executed = command(installed, "nnx-conformance", "execute", made, artifacts, "--output", "executed.json",
                       LD_DEBUG="files")
    assert json.loads((installed[1] / "executed.json").read_text()), executed.stdout
    bundled = next((installed[0] / "lib").glob("python3*/site-packages/nnx/_libs/libopenblas.so.0"))
    assert f"file={bundled} [0];  dynamically loaded by" in executed.stderr, "the bundled OpenBLAS was not opened"


def test_check_export_conformance_is_the_brief_script(installed):
    done = command(installed, "check-export-conformance", "--help")
    assert "--output" in done.stdout and "--source-revision" in done.stdout, done.stdout
