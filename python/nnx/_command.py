"""The installed commands (pyproject.toml's [project.scripts]; doc/install.md).

``nnx-conformance`` execs the C++ command line the wheel carries (nnx/_bin/nnx-conformance) with this
environment's interpreter as its worker's Python (NNX_PYTHON, unless already set: worker/worker_command.h) and,
when the core's own search (runtime/library_search.h) would end at the system loader, this environment's
onnxruntime wheel's library (NNX_ONNXRUNTIME_LIBRARY; the same rule as the Python API's). The binary finds
the worker script beside itself (nnx/_worker/) and the bundled OpenBLAS (nnx/_libs/).

``check-export-conformance`` is scripts/check_export_conformance.py (shipped as nnx/_scripts/), run with
this environment's nnx.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Optional

_PACKAGE = Path(__file__).resolve().parent


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    if not env.get("NNX_PYTHON"):
        env["NNX_PYTHON"] = sys.executable
    if not env.get("NNX_ONNXRUNTIME_LIBRARY"):
        from ._running import _onnxruntime_library

        library = _onnxruntime_library(None)
        if library:
            env["NNX_ONNXRUNTIME_LIBRARY"] = library
    return env


def main(argv: Optional[list[str]] = None) -> int:
    """Replaces this process with nnx/_bin/nnx-conformance; returns only when it cannot be started."""
    binary = _PACKAGE / "_bin" / "nnx-conformance"
    args = sys.argv[1:] if argv is None else argv
    try:
        os.execve(binary, ["nnx-conformance", *args], _environment())
    except OSError as error:
        print(f"nnx-conformance: cannot start {binary}: {error.strerror} (this nnx has no command line: "
              "install the wheel, doc/install.md)", file=sys.stderr)
        return 1


def check_export_conformance(argv: Optional[list[str]] = None) -> int:
    """scripts/check_export_conformance.py's main (the package's copy), with its exit code."""
    script = _PACKAGE / "_scripts" / "check_export_conformance.py"
    spec = importlib.util.spec_from_file_location("nnx._scripts.check_export_conformance", script)
    if spec is None or spec.loader is None or not script.is_file():
        print(f"check-export-conformance: {script} is missing (install the wheel, doc/install.md)", file=sys.stderr)
        return 1
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(sys.argv[1:] if argv is None else argv)
