"""A module export's precision other than float32 (src/base/precision.h; doc/profile-files.md, "Precision";
worker/PROTOCOL.md, "module_export"): the request's `precision`, applied in the child after PyTorch's float32
outputs and the float64 oracle were computed (they are the truth every precision is compared with).

  float16-torch  the module converted by torch in place (`module.half()`) and the example's float tensors
                 with it, then exported by the profile's exporter;
  bfloat16       the same with `module.to(torch.bfloat16)`;
  float16-graph  the module exported in float32 as ever, then the written graph converted by
                 onnxconverter-common's `float16.convert_float_to_float16(model, keep_io_types=True)`.

Every precision keeps the graph's float inputs and outputs as the float32 export has them: the converter by
`keep_io_types`, a torch-converted graph by a Cast at each half-precision input (from the profile's dtype:
round to nearest even, the rounding torch's `.half()` makes) and at each half-precision output (to float32),
so the stored test data fits the graph and parity compares float32 with float32.
"""

from __future__ import annotations

PRECISIONS = ("float16-torch", "float16-graph", "bfloat16")
TORCH_DTYPES = {"float16-torch": "float16", "bfloat16": "bfloat16"}


def parse_precision(req: dict, op: str):
    """The request's precision: None (float32, left out) or one of PRECISIONS."""
    from nnx_worker_model import ProtocolError

    precision = req.get("precision")
    if precision is not None and precision not in PRECISIONS:
        raise ProtocolError(f"{op}: unknown precision {precision!r} ({', '.join(PRECISIONS)}, or none for float32)")
    return precision


def convert_module(module, example: list, precision) -> list:
    """The example to export with: for float16-torch and bfloat16 the module converted in place and the
    example's float tensors with it; else both as they are."""
    import torch

    if precision not in TORCH_DTYPES:
        return example
    dtype = getattr(torch, TORCH_DTYPES[precision])
    module.to(dtype)
    return [t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in example]


def weights_module(module, precision):
    """The module the graph's weights are classified against (nnx_worker_weights.py): the converted one, and
    for float16-graph a float16 copy (the converter rounds the initializers as `.half()` does)."""
    import copy

    return copy.deepcopy(module).half() if precision == "float16-graph" else module


def _rename_uses(graph, old: str, new: str) -> None:
    """Every node input named `old` (in subgraphs too, which may read it from the outer scope) renamed `new`."""
    for node in graph.node:
        for k, name in enumerate(node.input):
            if name == old:
                node.input[k] = new
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                _rename_uses(sub, old, new)


def keep_float_boundary(model, spec_dtypes: dict) -> None:
    """A torch-converted graph's half-precision inputs and outputs cast at the boundary: an input back to
    the dtype the profile gives it (`spec_dtypes`: {name: onnx elem type}) with a Cast to the half type
    inside, an output to float32 with a Cast after the node that makes it."""
    from onnx import TensorProto, helper

    half = {TensorProto.FLOAT16, TensorProto.BFLOAT16}
    graph, casts = model.graph, []
    for value in graph.input:
        kind = value.type.tensor_type
        if kind.elem_type in half and value.name in spec_dtypes:
            inner = f"{value.name}__{TensorProto.DataType.Name(kind.elem_type).lower()}"
            _rename_uses(graph, value.name, inner)
            casts.append(helper.make_node("Cast", [value.name], [inner], to=kind.elem_type, name=f"{inner}_cast"))
            kind.elem_type = spec_dtypes[value.name]
    tail = []
    for value in graph.output:
        kind = value.type.tensor_type
        if kind.elem_type not in half:
            continue
        inner = f"{value.name}__{TensorProto.DataType.Name(kind.elem_type).lower()}"
        for node in graph.node:
            for k, name in enumerate(node.output):
                if name == value.name:
                    node.output[k] = inner
        _rename_uses(graph, value.name, inner)
        for info in graph.value_info:
            if info.name == value.name:
                info.name = inner
        tail.append(helper.make_node("Cast", [inner], [value.name], to=TensorProto.FLOAT, name=f"{inner}_cast"))
        kind.elem_type = TensorProto.FLOAT
    nodes = casts + list(graph.node) + tail
    del graph.node[:]
    graph.node.extend(nodes)


def convert_graph(path: str, precision, specs: list) -> dict:
    """The written graph as the precision has it (float16-graph: converted; the others: its boundary kept),
    saved in place; returns the export detail's {name, converter}."""
    import onnx
    import torch

    model = onnx.load(path)
    if precision == "float16-graph":
        import onnxconverter_common
        from onnxconverter_common import float16

        model = float16.convert_float_to_float16(model, keep_io_types=True)
        converter = (f"onnxconverter-common {onnxconverter_common.__version__} "
                     "float16.convert_float_to_float16(keep_io_types=True)")
    else:
        dtypes = {s["name"]: onnx.helper.np_dtype_to_tensor_dtype(_numpy_dtype(s["dtype"])) for s in specs
                  if s["dtype"] in ("float32", "float64")}
        keep_float_boundary(model, dtypes)
        converter = f"torch {torch.__version__} module.to(torch.{TORCH_DTYPES[precision]}), inputs and outputs cast"
    onnx.save(model, path)
    return {"name": precision, "converter": converter}


def _numpy_dtype(name: str):
    import numpy as np

    return np.dtype(name)
