"""The worker's `check` op (worker/PROTOCOL.md, `check`): the ONNX checker's verdict on a model file and
what the file declares: opsets, IR version, producer, the inputs' and outputs' signatures, and the external
data files its tensors name (every TensorProto: initializers, attributes, subgraphs, functions).
"""

from __future__ import annotations

import os

from nnx_worker_model import ProtocolError, describe


def _signature(values) -> list:
    import onnx

    out = []
    for v in values:
        entry = {"name": v.name, "dtype": None, "shape": None}
        if v.type.HasField("tensor_type"):
            tt = v.type.tensor_type
            entry["dtype"] = onnx.TensorProto.DataType.Name(tt.elem_type).lower()
            if tt.HasField("shape"):
                entry["shape"] = [d.dim_param if d.HasField("dim_param") else
                                  d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        else:
            entry["dtype"] = v.type.WhichOneof("value")
        out.append(entry)
    return out


def _graph_tensors(graph):
    """Every TensorProto of a graph: initializers, sparse initializers, node attributes, subgraphs."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        yield from _node_tensors(node)


def _node_tensors(node):
    for attr in node.attribute:
        if attr.HasField("t"):
            yield attr.t
        yield from attr.tensors
        if attr.HasField("sparse_tensor"):
            yield attr.sparse_tensor.values
            yield attr.sparse_tensor.indices
        for sparse in attr.sparse_tensors:
            yield sparse.values
            yield sparse.indices
        if attr.HasField("g"):
            yield from _graph_tensors(attr.g)
        for sub in attr.graphs:
            yield from _graph_tensors(sub)


def external_locations(model) -> list:
    import onnx

    tensors = list(_graph_tensors(model.graph))
    for function in model.functions:
        for node in function.node:
            tensors.extend(_node_tensors(node))
    found = set()
    for tensor in tensors:
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            for entry in tensor.external_data:
                if entry.key == "location":
                    found.add(entry.value)
    return sorted(found)


def op_check(req: dict) -> dict:
    path = req.get("path")
    if not isinstance(path, str) or not os.path.isabs(path):
        raise ProtocolError("check: 'path' must be an absolute path")
    try:
        import onnx
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"check: onnx is not importable: {describe(exc)}") from None
    error = None
    try:
        onnx.checker.check_model(path, full_check=True)
    except Exception as exc:  # noqa: BLE001 - the checker's verdict is the outcome
        error = describe(exc)
    response = {"ok": True, "error": error, "opset": None, "ir_version": None, "producer": None,
                "inputs": None, "outputs": None, "external_data": None}
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        response["error"] = error or f"cannot load the model: {describe(exc)}"
        return response
    response.update({
        "opset": {(o.domain or "ai.onnx"): o.version for o in model.opset_import},
        "ir_version": model.ir_version,
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "inputs": _signature(model.graph.input),
        "outputs": _signature(model.graph.output),
        "external_data": external_locations(model),
    })
    return response
