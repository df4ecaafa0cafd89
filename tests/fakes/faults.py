"""Test-only faults of the exporter worker, used by the stand-in worker tests/fakes/faulty_worker.py.

The product's worker (worker/nnx_worker.py) knows nothing of them: the stand-in loads it, wraps a few of
its functions with the fault named by NNX_TEST_FAULT and serves requests with its own main loop. They let
the test suite produce, with a real worker and a real exporter, failures that nothing else can cause on
demand.

Faults (an unknown name makes every export request `ok: false`, naming it):
  exporter-raises    the exporter call raises RuntimeError
  mutate-parameter   the exporter call adds +1.0 to one parameter value and does not restore it
  mutate-then-raise  the exporter call adds +1.0 to one parameter value, then raises RuntimeError
  mutate-buffer      a module export's exporter call (module_export) adds +1.0 to the first floating
                     buffer (a BatchNorm's running_mean first) and does not restore it
  corrupt-initializer  model.onnx is rewritten so the first float initializer's first value gains +0.5
                     (the weights stored in the file are no longer the model's)
  reference-off      the worker's PyTorch reference answers with every output shifted by -1e-3 (nothing
                     real makes PyTorch compute the wrong thing: this is the one injected reference fault)
  both-off           shift-outputs and reference-off together (+1e-3 in the graph, -1e-3 in the reference)
  checker-refuses    after a successful export, model.onnx gets a node whose input names a value that
                     does not exist (onnx.checker refuses it)
  shift-outputs      model.onnx is rewritten so logits = original + 1e-3 (an Add with a constant)
  nonfinite-outputs  model.onnx is rewritten so logits = original + NaN
  runtime-fails      model.onnx is rewritten so the feature dim is a dim_param (every input width is
                     accepted) and a Reshape of the input to an impossible fixed shape [0, 5]
                     (allowzero=1) gates every layer, so every run fails inside the graph (ORT status FAIL,
                     not INVALID_ARGUMENT)
  crash              the worker kills itself with SIGKILL on the export request
  hang               the worker sleeps forever on the export request
  garbage            the export request is answered with non-JSON text on the response channel
  flood              64 MiB are written to stdout while the export request is handled (before the
                     export, so none of it is in the export's own "log")
With NNX_TEST_FAULT_PROFILE=<profile name> the fault acts only on that profile's export request (the
export's output folder is named after the profile); other profiles served by the same worker export
normally (their reference answers keep the fault: reference-off and both-off ignore the filter).
crash, hang, garbage and flood act once the request's fields have passed the worker's checks
(parse_export_request). Every rewriting fault but checker-refuses leaves a model that onnx.checker
(full_check) accepts; rewritten models keep their external-data references. Only the standard library
is imported at module level.
"""

from __future__ import annotations

import os
import signal
import time

ENV = "NNX_TEST_FAULT"
FAULTS = ("exporter-raises", "mutate-parameter", "mutate-then-raise", "checker-refuses", "shift-outputs",
          "nonfinite-outputs", "runtime-fails", "corrupt-initializer", "reference-off", "both-off", "crash", "hang",
          "garbage", "flood", "mutate-buffer")
GARBAGE = b"<html>this is not JSON (nnx test fault 'garbage')\n"
FLOOD_BYTES = 64 << 20
SHIFT = 1e-3


PROFILE_ENV = "NNX_TEST_FAULT_PROFILE"


def fault_for_profile(fault: str | None, profile: str) -> str | None:
    """`fault` for an export into the folder named `profile`, unless NNX_TEST_FAULT_PROFILE names another."""
    only = os.environ.get(PROFILE_ENV, "")
    return fault if not only or only == profile else None


def selected_fault() -> str | None:
    """The fault NNX_TEST_FAULT names (None when unset or empty); ValueError for an unknown name."""
    name = os.environ.get(ENV, "")
    if not name:
        return None
    if name not in FAULTS:
        raise ValueError(f"{ENV}={name!r} is not a fault (known: {', '.join(FAULTS)})")
    return name


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def on_export_request(fault: str | None) -> bool:
    """crash / hang / flood act here. True for garbage: the request is to be answered with GARBAGE."""
    if fault == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "hang":
        while True:
            time.sleep(3600)
    if fault == "flood":
        chunk = b"nnx test fault 'flood': " + b"x" * 999 + b"\n"
        written = 0
        while written < FLOOD_BYTES:
            _write_all(1, chunk)
            written += len(chunk)
    return fault == "garbage"


def write_garbage(fd: int) -> None:
    _write_all(fd, GARBAGE)


def before_exporter_call(fault: str | None) -> None:
    if fault == "exporter-raises":
        raise RuntimeError("nnx test fault 'exporter-raises': the exporter failed on purpose")


def after_exporter_call(fault: str | None, model) -> None:
    if fault in ("mutate-parameter", "mutate-then-raise"):
        import torch

        with torch.no_grad():
            next(model.parameters()).view(-1)[0] += 1.0
    if fault == "mutate-then-raise":
        raise RuntimeError("nnx test fault 'mutate-then-raise': the exporter changed the model, then failed")


def after_module_exporter_call(fault: str | None, module) -> None:
    """mutate-buffer: +1.0 on the first floating buffer, a BatchNorm's running_mean if there is one."""
    if fault != "mutate-buffer":
        return
    import torch

    buffers = [(n, b) for n, b in module.named_buffers() if b.is_floating_point()]
    if not buffers:
        raise RuntimeError("nnx test fault 'mutate-buffer': the module has no floating buffer")
    name, buffer = next(((n, b) for n, b in buffers if n.endswith("running_mean")), buffers[0])
    with torch.no_grad():
        buffer.view(-1)[0] += 1.0


def shift_reference(fault: str | None, response: dict) -> dict:
    """reference-off / both-off: every reference output value shifted by -SHIFT (raw float32 kept)."""
    if fault not in ("reference-off", "both-off") or not response.get("ok"):
        return response
    import numpy as np
    import nnx_worker_tensors  # beside the worker script

    for k, out in enumerate(response["outputs"]):
        values = np.frombuffer(out.data, dtype="<f4") - np.float32(SHIFT)
        response["outputs"][k] = nnx_worker_tensors.WireTensor(out.name, out.dtype, out.shape,
                                                               values.astype("<f4").tobytes())
    return response


def rewrite_model(fault: str | None, path: str, options: dict) -> None:
    """Rewrites an exported model.onnx in place for the graph faults (external data is left as is)."""
    rewrite = {"checker-refuses": _checker_refuses, "shift-outputs": _shift_outputs, "both-off": _shift_outputs,
               "nonfinite-outputs": _nonfinite_outputs, "runtime-fails": _runtime_fails,
               "corrupt-initializer": _corrupt_initializer}.get(fault)
    if rewrite is None:
        return
    import onnx

    model = onnx.load(path, load_external_data=False)
    rewrite(model, options)
    onnx.save(model, path)


def _checker_refuses(model, options) -> None:
    from onnx import helper

    model.graph.node.append(helper.make_node("Identity", ["nnx_fault_no_such_value"], ["nnx_fault_dangling"],
                                             name="nnx_fault_checker_refuses"))


def _add_to_output(model, value: float, tag: str) -> None:
    from onnx import TensorProto, helper

    graph = model.graph
    output = graph.output[0].name
    raw = f"{output}_before_{tag}"
    for node in graph.node:
        node.output[:] = [raw if name == output else name for name in node.output]
        node.input[:] = [raw if name == output else name for name in node.input]
    const = f"nnx_fault_{tag}_value"
    graph.node.extend([
        helper.make_node("Constant", [], [const], name=f"nnx_fault_{tag}_const",
                         value=helper.make_tensor(const, TensorProto.FLOAT, [], [value])),
        helper.make_node("Add", [raw, const], [output], name=f"nnx_fault_{tag}_add"),
    ])


def _shift_outputs(model, options) -> None:
    _add_to_output(model, SHIFT, "shift")


def _nonfinite_outputs(model, options) -> None:
    _add_to_output(model, float("nan"), "nan")


def _corrupt_initializer(model, options) -> None:
    from onnx import TensorProto, numpy_helper

    for index, tensor in enumerate(model.graph.initializer):
        if tensor.data_type == TensorProto.FLOAT and tensor.data_location != TensorProto.EXTERNAL:
            values = numpy_helper.to_array(tensor).copy()
            values.reshape(-1)[0] += 0.5
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(values, tensor.name))
            return
    raise RuntimeError("corrupt-initializer: model.onnx holds no inline float initializer")


def _runtime_fails(model, options) -> None:
    from onnx import TensorProto, helper

    graph = model.graph
    features = graph.input[0]
    dim = features.type.tensor_type.shape.dim[1]
    dim.Clear()
    dim.dim_param = "nnx_fault_width"
    gated = f"{features.name}_nnx_fault_gated"
    for node in graph.node:
        node.input[:] = [gated if name == features.name else name for name in node.input]
    gate = [
        helper.make_node("Constant", [], ["nnx_fault_shape"], name="nnx_fault_shape_const",
                         value=helper.make_tensor("nnx_fault_shape", TensorProto.INT64, [2], [0, 5])),
        helper.make_node("Reshape", [features.name, "nnx_fault_shape"], ["nnx_fault_reshaped"],
                         name="nnx_fault_impossible_reshape", allowzero=1),
        helper.make_node("ReduceSum", ["nnx_fault_reshaped"], ["nnx_fault_zero"], name="nnx_fault_sum",
                         keepdims=0),
        helper.make_node("Add", [features.name, "nnx_fault_zero"], [gated], name="nnx_fault_gate"),
    ]
    for node in reversed(gate):
        graph.node.insert(0, node)
