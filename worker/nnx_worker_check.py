"""The worker's `check` op (worker/PROTOCOL.md, `check`): the ONNX checker's verdict on a model file and
what the file declares: opsets, IR version, producer, the inputs' and outputs' signatures, and the external
data files its tensors name (every TensorProto: initializers, attributes, subgraphs, functions).
Only a regular file of at most MAX_MODEL_BYTES is read (a FIFO, a device such as /dev/zero or a folder is
refused before the checker opens it).
"""

from __future__ import annotations

import os
import stat

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


# protobuf's 2 GiB limit, as the core's reader of model.onnx has it (src/onnx_file/onnx_model_file.cc).
MAX_MODEL_BYTES = 2**31 - 1


def parse_check_request(req: dict) -> str:
    """The absolute path of a check request (ProtocolError otherwise)."""
    path = req.get("path")
    if not isinstance(path, str) or not os.path.isabs(path) or "\0" in path:
        raise ProtocolError("check: 'path' must be an absolute path (without NUL)")
    return path


def unreadable_model(path: str) -> str | None:
    """Why the checker must not read `path` (not a regular file, or over MAX_MODEL_BYTES), else None. A
    missing file is left to the checker, which names it."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return f"the model {path} is not a regular file (a device, FIFO, socket or folder is never read)"
    if info.st_size > MAX_MODEL_BYTES:
        return f"the model {path} is {info.st_size} bytes, more than protobuf's 2 GiB limit ({MAX_MODEL_BYTES})"
    return None


def op_check(req: dict) -> dict:
    path = parse_check_request(req)
    response = {"ok": True, "error": None, "opset": None, "ir_version": None, "producer": None,
                "inputs": None, "outputs": None, "external_data": None}
    refused = unreadable_model(path)
    if refused is not None:
        return {**response, "error": refused}
    try:
        import onnx
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"check: onnx is not importable: {describe(exc)}") from None
    try:
        onnx.checker.check_model(path, full_check=True)
    except Exception as exc:  # noqa: BLE001 - the checker's verdict is the outcome
        response["error"] = describe(exc)
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        response["error"] = response["error"] or f"cannot load the model: {describe(exc)}"
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
