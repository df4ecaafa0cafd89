"""The worker's `graph_intermediates` op (worker/LOCALISATION.md, "graph_intermediates"; doc/localisation.md):
the reference side of a localisation when the record has no module to rebuild (an ONNX file given without a
factory, a data-only record). ONNX's reference evaluator (onnx.reference.ReferenceEvaluator, numpy, no user
code) runs the graph the core verified on the one case's inputs and every value a node writes is written as a
tensor file in `values_to`, named by its ONNX value name (so the core aligns by name: granularity "value").

The float64 oracle: the same graph with every float32 initializer, Constant and Cast-to-float made float64,
run on float64 inputs; a value it gives in float64 with the same shape is that value's oracle. A graph that
does not run so is compared without one (`oracle_missing` says why).

The evaluator keeps every value of its run until the run ends (its own design); this op writes them one at a
time and lets each go, and the core compares them one at a time (localisation.h).

Request: {op, model: absolute path of model.onnx (external data beside it), inputs: [absolute paths of the
case's input tensor files, one per graph input, named], values_to}. The answer: module_intermediates' fields
(values, granularity, oracle_missing, skipped, step_seconds).
"""

from __future__ import annotations

import os
import time

from nnx_worker_model import ProtocolError, describe
from nnx_worker_tensor_files import load, read_header, write_tensor_file
from nnx_worker_tensors import WireError

OP = "graph_intermediates"


def _request(req: dict) -> tuple:
    model, inputs, values_to = req.get("model"), req.get("inputs"), req.get("values_to")
    if not isinstance(model, str) or not os.path.isabs(model):
        raise ProtocolError(f"{OP}: 'model' must be an absolute path")
    if not isinstance(inputs, list) or not all(isinstance(p, str) and os.path.isabs(p) for p in inputs):
        raise ProtocolError(f"{OP}: 'inputs' must be a list of absolute paths")
    if not isinstance(values_to, str) or not os.path.isabs(values_to):
        raise ProtocolError(f"{OP}: 'values_to' must be an absolute path")
    return model, inputs, values_to


def _as_float64(model):
    """A copy of `model` computing in float64 wherever it computed in float32 (initializers, Constants,
    Casts to float, declared types); other types as they were."""
    import copy

    import numpy as np
    from onnx import TensorProto, numpy_helper

    twin = copy.deepcopy(model)
    graph = twin.graph

    def widen(tensor):
        if tensor.data_type == TensorProto.FLOAT:
            tensor.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float64), tensor.name))

    for init in graph.initializer:
        widen(init)
    for node in graph.node:
        for attr in node.attribute:
            if node.op_type == "Constant" and attr.HasField("t"):
                widen(attr.t)
            if node.op_type in ("Cast", "CastLike") and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.DOUBLE
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.DOUBLE
    return twin


def _write_all(results: dict, names: list, folder: str, prefix: str, skipped: list) -> dict:
    import numpy as np
    import torch

    entries = {}
    for name in names:
        value = results.pop(name, None)
        if value is None:
            continue
        if not isinstance(value, np.ndarray):
            skipped.append({"name": name, "why": f"its value is {type(value).__name__}, not a tensor"})
            continue
        try:
            tensor = torch.from_numpy(np.ascontiguousarray(value))
            entries[name] = write_tensor_file(folder, f"{prefix}/{len(entries)}.pb", name, tensor)
        except (TypeError, WireError) as exc:
            skipped.append({"name": name, "why": describe(exc)})
        del value
    return entries


def op_graph_intermediates(req: dict) -> dict:
    """Every value ONNX's reference evaluator computes on the case, and its float64 oracle where it runs."""
    model_path, input_paths, values_to = _request(req)
    steps, start = [], time.perf_counter()

    def done(step: str) -> None:
        nonlocal start
        steps.append([step, time.perf_counter() - start])
        start = time.perf_counter()

    answer = {"ok": True, "granularity": "value", "oracle_missing": None, "skipped": [], "step_seconds": steps}
    try:
        import onnx
        from onnx.reference import ReferenceEvaluator
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"{OP}: onnx is not importable: {describe(exc)}") from None
    try:
        model = onnx.load(model_path, load_external_data=True)
        feeds = {}
        for path in input_paths:
            header = read_header(path)
            feeds[header.name] = load(header).numpy()
        names = [out for node in model.graph.node for out in node.output if out]
        results = ReferenceEvaluator(model).run(None, feeds, intermediate=True)
    except Exception as exc:  # noqa: BLE001 - the graph the evaluator cannot run: the core says why
        return {**answer, "exception": f"ONNX's reference evaluator could not run the graph: {describe(exc)}"}
    done("values")
    entries = _write_all(results, names, values_to, "values", answer["skipped"])
    del results
    oracle = {}
    try:
        twin = ReferenceEvaluator(_as_float64(model)).run(
            None, {k: v.astype("float64") if v.dtype == "float32" else v for k, v in feeds.items()}, intermediate=True)
        oracle = _write_all(twin, names, values_to, "oracle", [])
    except Exception as exc:  # noqa: BLE001 - a graph that does not run in float64: compared without the oracle
        answer["oracle_missing"] = describe(exc)
    done("oracle")
    values = []
    for name, entry in entries.items():
        twin = oracle.get(name)
        usable = twin and twin["shape"] == entry["shape"] and twin["dtype"] == "float64" and entry["dtype"] == "float32"
        values.append({**entry, "module": None, "source": None, "output_index": None,
                       "oracle_file": twin["file"] if usable else None})
    answer["values"] = values
    return answer
