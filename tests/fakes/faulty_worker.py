"""A stand-in for the exporter worker that misbehaves on purpose -- FOR TESTS ONLY.

Tests run it in the worker's place through the product's own setting NNX_WORKER_SCRIPT (the core's search
order, src/worker/worker_command.h; the Python package's `_worker()`), with NNX_TEST_FAULT naming one
fault of tests/fakes/faults.py (unset or empty: none). It loads the real worker,
<repo>/worker/nnx_worker.py (found relative to this file), as a module, wraps these of its functions
with the fault, and serves requests with the real worker's own loop (nnx_worker.serve), so everything
but the fault is the product's code and protocol (worker/PROTOCOL.md):
  OPS["export"]   the export op: refused (`ok: false`) for an unknown fault name; after the real checks of
                  the request (parse_export_request), crash / hang / flood act, garbage makes the answer
                  non-JSON; every export answer gains "fault": the fault's name or null, so an answer made
                  under a fault never passes for a clean one;
  call_exporter   the exporter call: exporter-raises, mutate-parameter;
  OPS["module_export"], nnx_worker_module.call_module_exporter
                  the module export (worker/nnx_worker_module.py) the same way: refused for an unknown
                  fault name, its answers gain "fault"; its exporter call (in the forked child) gets
                  exporter-raises, mutate-parameter, mutate-then-raise and mutate-buffer;
  run_exporter    the watched export: the model-rewriting faults (checker-refuses, shift-outputs,
                  nonfinite-outputs, runtime-fails) rewrite model.onnx after an export that raised nothing
                  and wrote it;
  write_response  the response channel: the garbage answer goes out as raw bytes.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL_WORKER = HERE.parents[1] / "worker" / "nnx_worker.py"

sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REAL_WORKER.parent))  # the real worker imports its modules from beside it
import faults  # noqa: E402  (tests/fakes/faults.py: stdlib-only at import)

GARBAGE_ANSWER = object()  # what the wrapped export op returns when the answer must be garbage


def load_real_worker():
    spec = importlib.util.spec_from_file_location("nnx_worker", REAL_WORKER)
    worker = importlib.util.module_from_spec(spec)
    sys.modules["nnx_worker"] = worker
    spec.loader.exec_module(worker)
    return worker


def install_module(worker, fault: str | None, problem: str | None) -> None:
    """Wraps the module export's seams (worker/nnx_worker_module.py) with `fault`."""
    import nnx_worker_module  # the very module the real worker imported (beside it, on sys.path)

    real_op = worker.OPS["module_export"]
    real_call = nnx_worker_module.call_module_exporter
    current = {"fault": fault}

    def op_module_export(req):
        if problem is not None:
            raise worker.ProtocolError(f"module_export: {problem}")
        folder = req.get("output_dir") if isinstance(req.get("output_dir"), str) else ""
        current["fault"] = faults.fault_for_profile(fault, os.path.basename(os.path.normpath(folder or ".")))
        try:
            response = real_op(req)
            if response.get("ok"):
                response["fault"] = current["fault"]
            return response
        finally:
            current["fault"] = fault

    def call_module_exporter(module, example, path, plan, names):
        faults.before_exporter_call(current["fault"])
        real_call(module, example, path, plan, names)
        faults.after_exporter_call(current["fault"], module)
        faults.after_module_exporter_call(current["fault"], module)

    worker.OPS["module_export"] = op_module_export
    nnx_worker_module.call_module_exporter = call_module_exporter


def install(worker, fault: str | None, problem: str | None) -> None:
    """Wraps the real worker's seams with `fault` (or refuses every export with `problem`)."""
    real_op_export = worker.OPS["export"]
    real_op_reference = worker.OPS["reference"]
    real_call_exporter = worker.call_exporter
    real_run_exporter = worker.run_exporter
    real_write_response = worker.write_response

    current = {"fault": fault}  # the fault of the export request being served (faults.fault_for_profile)

    def op_export(req):
        if problem is not None:
            raise worker.ProtocolError(f"export: {problem}")
        plan = worker.parse_export_request(req)  # a malformed request is refused first, as by the real worker
        current["fault"] = faults.fault_for_profile(fault, os.path.basename(os.path.normpath(plan["output_dir"])))
        try:
            if faults.on_export_request(current["fault"]):
                return GARBAGE_ANSWER
            response = real_op_export(req)
            response["fault"] = current["fault"]
            return response
        finally:
            current["fault"] = fault

    def call_exporter(model, example, path, options):
        faults.before_exporter_call(current["fault"])
        real_call_exporter(model, example, path, options)
        faults.after_exporter_call(current["fault"], model)

    def run_exporter(model, example, path, options):
        outcome = real_run_exporter(model, example, path, options)
        if outcome["exception"] is None and outcome["wrote_model"]:
            faults.rewrite_model(current["fault"], path, options)
        return outcome

    def write_response(fd, response):
        if response is GARBAGE_ANSWER:
            faults.write_garbage(fd)
        else:
            real_write_response(fd, response)

    worker.OPS["export"] = op_export
    worker.OPS["reference"] = lambda req: faults.shift_reference(fault, real_op_reference(req))
    worker.call_exporter = call_exporter
    worker.run_exporter = run_exporter
    worker.write_response = write_response


def main() -> None:
    try:
        fault, problem = faults.selected_fault(), None
    except ValueError as exc:
        fault, problem = None, str(exc)
    worker = load_real_worker()
    install(worker, fault, problem)
    install_module(worker, fault, problem)
    worker.serve()


if __name__ == "__main__":
    main()
