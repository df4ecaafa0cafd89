"""Helpers shared by more than one tests/e2e/ file (this module holds no tests; conftest.py holds the paths
and the fixtures, hostile_support.py what only the hostile tests need).

One helper for one job: reading a record's stage statuses, a report's records by profile, which worker
served which export, the spy library's environment, a built test tool, a locked ONNX Runtime release, the
bytes the product saves a JSON document as, a run in a folder (under a file-size limit), a run with stderr on a pseudo-terminal, a private copy of a run's artifacts, a file's sha256, and a
record's artifacts listed again from its folder (as a tamperer keeps the hashes consistent), or its
entry of an edited file (model.onnx unless told) made to match it.
"""
import fcntl
import hashlib
import json
import os
import pty
import select
import shutil
import struct
import subprocess
import termios
from pathlib import Path

import resource
import signal

import pytest

from conftest import BUILD, BUNDLED_ORT, CLI, require_runtime

STAGES = ("dependencies", "export", "check", "load", "parity")
SPY = (BUILD / "libnnx_ort_spy.so").resolve()  # absolute: a test may start the CLI in another folder
CACHE = Path(os.environ.get("NNX_CACHE", Path.home() / ".cache" / "nnx-conformance"))


# The CI variables `matrix --shard ci` reads (src/matrix/cell_plan.h shard_from_ci).
CI_SHARD_VARIABLES = ("CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL",
                      "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT")


def without_ci_shard(extra: dict) -> dict:
    """This process's environment without the CI shard variables (a CI running the suite does not choose a
    test's shard), with `extra` added."""
    env = {k: v for k, v in os.environ.items() if k not in CI_SHARD_VARIABLES}
    env.update(extra)
    return env


def stage_statuses(record):
    """The five stages' statuses, in order."""
    return [record["stages"][s]["status"] for s in STAGES]


def records_by_profile(report) -> dict:
    """{profile name: record} of a report."""
    return {r["profile"]: r for r in report["profiles"]}


def workers_of(timings):
    """{profile: the worker number that served its export}."""
    return {p["profile"]: p["worker"] for p in timings["phases"] if p["name"] == "export"}


def spy_env(tmp_path):
    """Environment entries that make the spy library (tests/fakes/ort_spy.cc) stand in for ONNX Runtime: it
    forwards every call to the real library and logs each session creation to the returned file."""
    log = tmp_path / "spy.log"
    return {"NNX_ONNXRUNTIME_LIBRARY": str(SPY), "NNX_SPY_REAL_ORT": str(BUNDLED_ORT), "NNX_SPY_LOG": str(log)}, log


def built_tool(path: Path) -> Path:
    """`path`, a test tool of the build (tests/tools/); the test fails when it was not built."""
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the project (cmake --build {BUILD}) or set NNX_BUILD_DIR")
    return path


def runtime_library(version: str) -> Path:
    """The ONNX Runtime release `version` of the lock, as `make runtimes` installs it."""
    path = CACHE / "runtimes" / version / f"libonnxruntime.so.{version}"
    assert path.is_file(), f"{path} is missing: run `make runtimes`"
    return path


def saved_text(value) -> str:
    """The text the product saves a record or report as (sorted keys, two-space indent, a final newline)."""
    return json.dumps(value, sort_keys=True, indent=2) + "\n"


def write_json(path: Path, value) -> Path:
    """`value` saved at `path` as the product saves it; returns `path`."""
    path.write_text(saved_text(value))
    return path


def copy_artifacts(artifacts: Path, tmp_path: Path) -> Path:
    """A private copy of an artifacts root (symbolic links kept as links) at tmp_path/artifacts."""
    root = tmp_path / "artifacts"
    shutil.copytree(artifacts, root, symlinks=True)
    return root


def sha256_of(path) -> str:
    """The hex sha256 of the file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def relist(report_path, folder, roles=None):
    """The record's artifacts.files listed again from the folder, as the check stage lists them."""
    report = json.loads(report_path.read_text())
    record = report["profiles"][0]
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        role = "model" if rel == "model.onnx" else (roles or {}).get(rel, "external-data")
        files.append({"path": rel, "role": role, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    record["artifacts"]["files"] = files
    write_json(report_path, report)


def rehash(record, root: Path, relative: str = "model.onnx") -> None:
    """The record's entry of `relative` (model.onnx unless told) made to match the (edited) file, as a
    tamperer would."""
    for f in record["artifacts"]["files"]:
        if f["path"] == relative:
            path = root / record["artifacts"]["directory"] / relative
            f["bytes"], f["sha256"] = path.stat().st_size, sha256_of(path)


def run_cli_in(folder: Path, args, env=None, file_limit=None):
    """The command line started in `folder` with `env` added; with `file_limit` (bytes) RLIMIT_FSIZE set for
    it and its worker, so a file grown past it fails with EFBIG as on a full disk (SIGXFSZ ignored: the write
    fails rather than killing the process)."""
    require_runtime()

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run([str(CLI), *map(str, args)], cwd=folder, capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})}, preexec_fn=limited if file_limit else None)


def run_in_terminal(*args, columns=None, env=None):
    """Runs the command line with stderr on a real pseudo-terminal (its window `columns` wide when given, set
    with TIOCSWINSZ before the command starts; `env` entries replace or, as None, remove the environment's);
    returns (exit code, stdout, the bytes the terminal received as text)."""
    require_runtime()
    controller, terminal = pty.openpty()
    if columns is not None:
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    full_env = {**os.environ, **{k: v for k, v in (env or {}).items() if v is not None}}
    for key in [k for k, v in (env or {}).items() if v is None]:
        full_env.pop(key, None)
    process = subprocess.Popen([str(CLI), *map(str, args)], stdout=subprocess.PIPE, stderr=terminal, env=full_env)
    os.close(terminal)
    seen = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 900)
        if not ready:
            break
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    out = process.stdout.read().decode()
    code = process.wait(timeout=900)
    os.close(controller)
    return code, out, seen.decode(errors="replace")


def without_seconds(matrix: dict) -> dict:
    """A runtime matrix without each cell's `seconds` (its wall time, which no two runs share): what a merge of
    shards must equal of the unsharded matrix."""
    copy = json.loads(json.dumps(matrix))
    for runtime in copy["runtimes"]:
        runtime.pop("seconds", None)
    return copy
