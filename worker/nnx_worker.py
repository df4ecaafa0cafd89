"""nnx worker: the Python-only half of nnx-conformance (PyTorch export and the ONNX checker).

Contract (full protocol in worker/PROTOCOL.md):
  * started by the C++ core as `<python> <repo>/worker/nnx_worker.py`;
  * reads requests from stdin, one JSON object per line followed by its tensor frames, and answers each
    with exactly ONE JSON line and its tensor frames written to file descriptor 3 (nnx_worker_tensors.py;
    stdout and stderr are the core's log capture: exporters print there at the C level, so they never carry
    protocol data);
  * every response is {"ok": true, ...} or {"ok": false, "error": "..."} (a protocol-level problem:
    unknown op, malformed request, parameters that do not fit the model);
  * ops: ping, dependencies, export, reference, check, module_export, module_reference, module_intermediates;
  * exits (status 0) when stdin closes;
  * imports neither torch, onnx nor numpy at start-up, so `dependencies` works where they are missing.

The core owns the weights: the export request carries every parameter as a float32 tensor frame and the
worker copies them in exactly. The module can also be imported (its functions are the steps of
each op); only running it as a script serves requests.

This script holds the export op and the request loop; the other ops and what they share live in modules
beside it (all staged with it, as nnx/_worker/ in the package): nnx_worker_model.py (a request's network
and tensors, ProtocolError), nnx_worker_dependencies.py (`dependencies`, the environment),
nnx_worker_reference.py (`reference`), nnx_worker_check.py (`check`), nnx_torch_model.py (the network),
nnx_worker_tensors.py (the tensor wire).
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import sys
import threading
import traceback

# The worker's other modules, beside this script (sys.path[0]); none imports torch, onnx or numpy at start-up.
import nnx_worker_check
import nnx_worker_feedfwd_values
import nnx_worker_graph_values
import nnx_worker_module
import nnx_worker_reference
from nnx_worker_dependencies import op_dependencies
# feedfwd_class: the network class, for an importer of this module (the in-process export tests).
from nnx_worker_model import (ProtocolError, build_model, decode_tensor, describe, feedfwd_class,  # noqa: F401
                              is_int, model_config)
from nnx_worker_tensors import WireError, encode_message, read_frames, write_message
# snapshot: the state proof's snapshot, for an importer of this module (the in-process export tests).
from nnx_worker_watch import changed_parts, export_in_eval, list_files, snapshot, watch_export  # noqa: F401

RESPONSE_FD = 3
PLAIN_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
EXPORTERS = ("torchscript", "dynamo")


# --------------------------------------------------------------------------------------------
# state: mixed mode and gradients (the snapshot is nnx_worker_watch.snapshot)


def pin_root_train_layers_eval_then_cross_entropy_grads(model, example):
    """The built-in network's state recipe (worker/PROTOCOL.md, "The two state recipes"): train() on the
    whole net, eval() on its first child `layers`; gradients from one CE backward pass in that mixed mode."""
    import torch
    import torch.nn.functional as F

    model.train()
    next(iter(model.children())).eval()
    model.zero_grad(set_to_none=True)
    logits = model(example)
    labels = torch.zeros(logits.shape[0], dtype=torch.int64)
    F.cross_entropy(logits, labels).backward()


# --------------------------------------------------------------------------------------------
# export


def call_exporter(model, example, path: str, options: dict) -> None:
    """The raw exporter call: torch.onnx.export of `model` to `path` with the request's options."""
    import torch

    names = {"input_names": list(options["input_names"]), "output_names": list(options["output_names"])}
    if options["dynamo"]:
        dynamic_shapes = ({0: torch.export.Dim("batch", min=1)},) if options["dynamic_batch"] else None
        torch.onnx.export(model, (example,), path, dynamo=True, opset_version=options["opset_version"],
                          dynamic_shapes=dynamic_shapes, **names)
    else:
        dynamic_axes = None
        if options["dynamic_batch"]:
            dynamic_axes = {n: {0: "batch"} for n in names["input_names"] + names["output_names"]}
        torch.onnx.export(model, (example,), path, dynamo=False, opset_version=options["opset_version"],
                          dynamic_axes=dynamic_axes, **names)


def to_onnx(model, example, path: str, options: dict) -> None:
    """Exports in eval mode and leaves the model's modes and gradients as it found them
    (nnx_worker_watch.export_in_eval); parameter values are not restored."""
    export_in_eval(model, lambda: call_exporter(model, example, path, options))


def _export_options(req: dict) -> dict:
    exporter, options = req.get("exporter"), req.get("options")
    if exporter not in EXPORTERS:
        raise ProtocolError(f"export: unknown exporter {exporter!r} (torchscript or dynamo)")
    if not isinstance(options, dict):
        raise ProtocolError("export: 'options' must be an object")
    if options.get("exporter", exporter) != exporter or options.get("dynamo") is not (exporter == "dynamo"):
        raise ProtocolError(f"export: options {options.get('exporter')!r}/dynamo={options.get('dynamo')!r} "
                            f"contradict exporter {exporter!r}")
    for key in ("opset_version", "export_batch"):
        if not is_int(options.get(key)) or options[key] < 1:
            raise ProtocolError(f"export: options.{key} must be a positive integer")
    if not isinstance(options.get("dynamic_batch"), bool):
        raise ProtocolError("export: options.dynamic_batch must be a boolean")
    for key in ("input_names", "output_names"):
        names = options.get(key)
        if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str) or not names[0]:
            raise ProtocolError(f"export: options.{key} must hold exactly one name")
    return options


def parse_export_request(req: dict) -> dict:
    """The checked fields of an export request: options, model config, output folder and model path.
    Raises ProtocolError naming the first problem (parameters and the example input are checked later,
    against the model)."""
    options = _export_options(req)
    cfg = model_config(req.get("model"))
    output_dir, model_file = req.get("output_dir"), req.get("model_file", "model.onnx")
    if not isinstance(output_dir, str) or not os.path.isabs(output_dir):
        raise ProtocolError("export: 'output_dir' must be an absolute path")
    if not isinstance(model_file, str) or not PLAIN_NAME.match(model_file) or model_file in (".", ".."):
        raise ProtocolError("export: 'model_file' must be a plain file name")
    return {"options": options, "model": cfg, "output_dir": output_dir,
            "path": os.path.join(output_dir, model_file)}


def run_exporter(model, example, path: str, options: dict) -> dict:
    """Exports `model` to `path` once (to_onnx), watching it (nnx_worker_watch.watch_export). Returns what
    the export response reports: exception, log, warnings, changed (the state parts that differ afterwards)
    and wrote_model (a regular file created or replaced at `path`)."""
    outcome = watch_export(model, path, lambda: to_onnx(model, example, path, options))
    changed = changed_parts(outcome.pop("before"), outcome.pop("after"))
    return {**outcome, "changed": changed}


def op_export(req: dict) -> dict:
    plan = parse_export_request(req)
    options, cfg = plan["options"], plan["model"]
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"export: torch is not importable: {describe(exc)}") from None

    model = build_model(cfg, req.get("parameters"))
    example = decode_tensor(req.get("example_input"), "example_input")
    if list(example.shape) != [options["export_batch"], cfg["input_dim"]]:
        raise ProtocolError(f"export: example_input shape {list(example.shape)} is not "
                            f"[export_batch, input_dim] = [{options['export_batch']}, {cfg['input_dim']}]")
    torch.manual_seed(0)  # dropout masks in the gradient pass are reproducible
    pin_root_train_layers_eval_then_cross_entropy_grads(model, example)
    os.makedirs(plan["output_dir"], exist_ok=True)
    outcome = run_exporter(model, example, plan["path"], options)
    changed = outcome["changed"]
    return {
        "ok": True,
        "exception": outcome["exception"],
        "log": outcome["log"],
        "warnings": outcome["warnings"],
        "changed": changed,
        "model_state": {part: part not in changed for part in ("parameters", "gradients", "modes")},
        "wrote_model": outcome["wrote_model"],
        "files": list_files(plan["output_dir"]),
    }


# --------------------------------------------------------------------------------------------
# the loop


OPS = {"ping": lambda req: {"ok": True}, "dependencies": op_dependencies, "export": op_export,
       "reference": nnx_worker_reference.op_reference, "check": nnx_worker_check.op_check,
       "module_export": nnx_worker_module.op_module_export,
       "module_reference": nnx_worker_module.op_module_reference,
       "module_intermediates": nnx_worker_module.op_module_intermediates,
       "graph_intermediates": nnx_worker_graph_values.op_graph_intermediates,
       "reference_intermediates": nnx_worker_feedfwd_values.op_reference_intermediates}


def handle(line: bytes, ops: dict = OPS, stream=None) -> dict:
    """The answer to one request line (its tensor frames read from `stream`); never raises (a line the loop
    cannot parse or dispatch gets an ok:false answer, so the worker serves the next one). `ops`: op name ->
    function of the request."""
    try:
        req = json.loads(line)
    except (ValueError, RecursionError, MemoryError) as exc:  # RecursionError: nested deeper than the stack allows
        return {"ok": False, "error": f"request is not JSON: {describe(exc)}"}
    if not isinstance(req, dict):
        return {"ok": False, "error": "request must be a JSON object"}
    if "frames" in req:
        try:
            req = read_frames(req, stream)
        except (WireError, OSError, AttributeError, MemoryError) as exc:
            return {"ok": False, "error": f"request tensor frames: {describe(exc)}"}
    name = req.get("op")
    if not isinstance(name, str) or name not in ops:
        shown = repr(name)[:80] if isinstance(name, str) else f"of type {type(name).__name__}"
        return {"ok": False, "error": f"unknown op {shown} (a string, one of: {', '.join(sorted(ops))})"}
    try:
        return ops[name](req)
    except ProtocolError as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - never die on a request; report it
        traceback.print_exc()
        return {"ok": False, "error": f"internal error in {name}: {describe(exc)}"}


def response_line(response: dict) -> bytes:
    """The answer's one line on fd 3 (nnx_worker_tensors.encode_message: strict JSON, UTF-8,
    newline-terminated, its tensors as frame references; an answer that cannot be written so becomes an
    internal-error answer)."""
    return encode_message(response)[0]


def answers(stream, ops: dict = OPS):
    """The answer to each request line `stream` holds (blank lines skipped), in order, until it ends."""
    while True:
        line = stream.readline()
        if not line:
            return
        if line.strip():
            yield handle(line, ops, stream)


def write_response(fd: int, response: dict) -> None:
    write_message(fd, response)


LIFELINE_FD = 9  # the core's lifeline (src/base/child_process.h): end-of-file once the core has ended


def watch_lifeline() -> None:
    """Once the core that started the worker has ended, however it ended (SIGKILL too), the worker's process
    group (the worker and every fork of it) is killed; nothing when descriptor 9 is not a pipe."""
    try:
        if not stat.S_ISFIFO(os.fstat(LIFELINE_FD).st_mode):
            return
    except OSError:
        return
    os.set_inheritable(LIFELINE_FD, False)

    def wait_for_the_end() -> None:
        try:
            while os.read(LIFELINE_FD, 1):
                pass
        except OSError:
            return
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=wait_for_the_end, name="nnx-lifeline", daemon=True).start()


def main() -> int:
    watch_lifeline()
    try:
        os.fstat(RESPONSE_FD)
    except OSError:
        print("nnx_worker: file descriptor 3 (the response channel) is not open", file=sys.stderr)
        return 2
    os.set_inheritable(RESPONSE_FD, False)  # exporter subprocesses never hold the response channel
    for response in answers(sys.stdin.buffer):
        try:
            write_response(RESPONSE_FD, response)
        except BrokenPipeError:
            return 0
    return 0


def serve() -> None:
    """Serves requests until stdin closes (main), then ends the process with main's status."""
    status = main()
    nnx_worker_module.WARM_PARENTS.close()
    # Skip the interpreter's teardown (seconds after a dynamo export): only the log streams need flushing.
    from nnx_worker_fork import flush_and_exit  # beside this script; stdlib-only at import
    flush_and_exit(status)


if __name__ == "__main__":
    serve()
