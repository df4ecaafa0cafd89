"""`pip install .` works from a clean clone (doc/install.md, "Building from source").

The checkout's HEAD is cloned into a temporary folder outside the checkout (no .venv, no .deps, no build
folder there), and a fresh virtualenv of the base interpreter (not .venv) builds its wheel with build
isolation on and offline: scikit-build-core, pybind11 and onnx come from the lock's cached wheels
($NNX_CACHE/wheels), the ONNX Runtime headers from what scripts/build_requirements.sh extracted into
$NNX_CACHE/onnxruntime-headers/include (the bootstrap runs it), onnx.proto from the isolated build's onnx.
The CMake folder is <clone>/build-wheel, at the depth of the checkout's build-wheel/, so that ccache serves
the objects that build compiled. The build's environment names nothing of the checkout. The wheel's ELF
files must hold no path of the clone or of the checkout, and its nnx/_bin/nnx-conformance must run.
"""
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from conftest import REPO
from support import CACHE

HEADERS = CACHE / "onnxruntime-headers" / "include"


def run(args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=3600, **kwargs)
    assert done.returncode == 0, f"{args} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    return done


def checkout_paths():
    """Every spelling of the checkout's folder a build could bake in (its .venv may be a link elsewhere)."""
    paths = {str(REPO), str(REPO.resolve())}
    venv = REPO / ".venv"
    if venv.exists():
        paths.add(str(venv.resolve().parent))
    return paths


def clean_env(venv: Path):
    """The environment a user's shell would give the build: no NNX_* but NNX_CACHE, nothing naming the checkout."""
    env = {key: value for key, value in os.environ.items()
           if not (key.startswith("NNX_") and key != "NNX_CACHE") and key not in ("PATH", "VIRTUAL_ENV", "_")
           and not any(path in value for path in checkout_paths())}
    path = [p for p in os.environ.get("PATH", "/usr/bin:/bin").split(":") if not any(c in p for c in checkout_paths())]
    env.update(PATH=":".join([str(venv / "bin"), *path]), CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get(
        "CMAKE_BUILD_PARALLEL_LEVEL", "1"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def elf_files(wheel: Path):
    """{member name: bytes} of the wheel's ELF files."""
    with zipfile.ZipFile(wheel) as z:
        return {name: data for name in z.namelist() if (data := z.read(name))[:4] == b"\x7fELF"}


def test_pip_builds_the_wheel_from_a_clean_clone_offline_and_bakes_in_no_path(tmp_path):
    assert (HEADERS / "onnxruntime_c_api.h").is_file(), f"{HEADERS} is missing: run scripts/build_requirements.sh"
    assert REPO not in tmp_path.parents, "the temporary folder is inside the checkout"
    clone, venv, out = tmp_path / "clone", tmp_path / "venv", tmp_path / "wheelhouse"
    run(["git", "clone", "--quiet", REPO, clone])
    assert not any((clone / name).exists() for name in (".venv", ".deps", "build", "build-wheel"))
    run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", venv])
    env = clean_env(venv)
    started = time.monotonic()
    run([venv / "bin" / "python", "-m", "pip", "wheel", clone, "--no-index", "--find-links", CACHE / "wheels",
         "--no-deps", "-q", "-w", out, "-C", f"build-dir={clone / 'build-wheel'}"], env=env, cwd=tmp_path)
    wheels = sorted(out.glob("nnx_conformance-*.whl"))
    print(f"\npip wheel from a clean clone: {wheels[0].name if wheels else None}, "
          f"{wheels[0].stat().st_size if wheels else 0} bytes, in {time.monotonic() - started:.1f} s")
    assert len(wheels) == 1, [w.name for w in out.iterdir()]

    elves = elf_files(wheels[0])
    assert {"nnx/_bin/nnx-conformance"} <= set(elves) and any(n.startswith("nnx/_core.") for n in elves), sorted(elves)
    for name, data in elves.items():
        for path in checkout_paths() | {str(clone), str(clone.resolve()), str(tmp_path)}:
            assert path.encode() not in data, f"{name} holds the path {path}"

    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(wheels[0]).extractall(unpacked)
    binary = unpacked / "nnx" / "_bin" / "nnx-conformance"
    binary.chmod(0o755)
    done = run([binary, "--version"], env=env, cwd=tmp_path)
    assert done.stdout.strip(), done.stderr
