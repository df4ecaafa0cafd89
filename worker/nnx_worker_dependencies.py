"""The worker's `dependencies` op, and the environment every answer reports (worker/PROTOCOL.md, `dependencies`).

A module is reported when it is findable AND importable; a version comes from the module, else from its
installed distribution's metadata (read once per worker, without importing). Nothing heavy is imported at
start-up, so `dependencies` works where torch, onnx or numpy are missing.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import platform
import sys
import time

from nnx_worker_model import ProtocolError, describe

PIP_NAMES = {"onnxruntime": "onnxruntime", "onnxscript": "onnxscript", "onnx": "onnx", "torch": "torch",
             "numpy": "numpy"}
ENVIRONMENT_MODULES = ("numpy", "torch", "onnx", "onnxscript")


@functools.cache
def installed_version(name: str) -> str | None:
    """The version in the installed distribution's metadata of module `name`, or None. Read once per worker
    (a scan of every distribution on sys.path costs about a millisecond, and each request reports the
    environment): a worker serves one run, and the run does not install packages under itself."""
    try:
        return importlib.metadata.version(PIP_NAMES.get(name, name))
    except Exception:  # noqa: BLE001 - a version is diagnostic only
        return None


def module_version(module) -> str | None:
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    return installed_version(module.__name__)


def try_import(name: str):
    """Returns (module, None) or (None, "<ExcType>: <message>"). Findable AND importable."""
    try:
        spec = importlib.util.find_spec(name)
    except BaseException as exc:  # noqa: BLE001 - a broken parent package counts as missing
        return None, describe(exc)
    if spec is None:
        return None, f"ModuleNotFoundError: No module named '{name}'"
    try:
        return importlib.import_module(name), None
    except BaseException as exc:  # noqa: BLE001 - a broken install (even SystemExit) counts as missing
        return None, describe(exc)


def parse_dependencies_request(req: dict) -> list:
    """The module names of a dependencies request (ProtocolError otherwise)."""
    modules = req.get("modules")
    if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
        raise ProtocolError("dependencies: 'modules' must be a list of module names")
    return modules


def op_dependencies(req: dict) -> dict:
    modules = parse_dependencies_request(req)
    versions, problems, import_seconds = {}, [], {}
    for name in modules:
        started = time.perf_counter()
        module, problem = try_import(name)
        import_seconds[name] = time.perf_counter() - started
        if problem is None:
            versions[name] = module_version(module)
        else:
            problems.append(f"{name}: {problem}; install with: pip install {PIP_NAMES.get(name, name)}")
    return {"ok": True, "versions": versions, "problems": problems, "environment": environment(versions),
            "import_seconds": import_seconds}


def environment(known: dict) -> dict:
    env = {"python": platform.python_version(), "platform": platform.platform()}
    for name in ENVIRONMENT_MODULES:
        if name in known:
            env[name] = known[name]
        elif name in sys.modules:
            env[name] = module_version(sys.modules[name])
        else:
            env[name] = installed_version(name)  # metadata only: importing here could be slow or break
    return env
