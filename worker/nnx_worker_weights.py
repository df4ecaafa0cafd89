"""A module export's `weights` (worker/PROTOCOL.md, "Module profiles"): every state_dict entry classified
against what the exported ONNX graph holds, each explanation backed by the graph itself:

  kept         an initializer (or Constant) of the same name with equal values; else one with equal values
               under another name, or holding the values transposed (`as`, `transposed`);
  transformed  {"name", "why"}:
               - a BatchNorm folded into the Conv before it: the graph holds a Conv weight equal (float32
                 rounding) to that Conv's weight scaled per channel by weight / sqrt(running_var + eps), so
                 the Conv's weight and bias and the BatchNorm's weight, bias, running_mean, running_var are
                 all in it;
               - a BatchNorm's num_batches_tracked (an int64 scalar no graph value equals): eval mode
                 never reads it;
               - a recurrent (RNN/GRU/LSTM) weight or bias, or MultiheadAttention's in_proj, whose gate or
                 projection blocks (rows) are each found, bit for bit (or transposed), inside the values the
                 graph holds: packed into the recurrent node's W/R/B (gates reordered) or split;
               - an all-zero bias the graph dropped: its layer's weight feeds Conv/Gemm/ConvTranspose
                 nodes that take no bias input;
  missing      nothing above explains it.

Values are compared bit for bit except the folded Conv weight (relative 1e-5).
"""

from __future__ import annotations

import numpy as np

RECURRENT_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _widened(array):
    """A graph value as the state dict is read (_as_numpy): bfloat16 widened exactly to float32."""
    return array.astype("float32") if array.dtype.name == "bfloat16" else array


def _graph_values(model) -> tuple:
    """({name: array} of every initializer and Constant value, at any graph depth, {op_type: count},
    {value name: [(op_type, input index)]} of the consumers)."""
    from onnx import numpy_helper

    values, ops, uses = {}, {}, {}

    def walk(graph):
        for init in graph.initializer:
            values[init.name] = _widened(numpy_helper.to_array(init))
        for node in graph.node:
            ops[node.op_type] = ops.get(node.op_type, 0) + 1
            for index, name in enumerate(node.input):
                uses.setdefault(name, []).append((node.op_type, index, len([i for i in node.input if i])))
            for attr in node.attribute:
                if node.op_type == "Constant" and attr.name == "value":
                    values[node.output[0]] = _widened(numpy_helper.to_array(attr.t))
                for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    walk(sub)

    walk(model.graph)
    for function in model.functions:
        for node in function.node:
            ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return values, ops, uses


class _Index:
    def __init__(self, values: dict):
        self.values = values
        self.by_bytes = {}
        for name, array in values.items():
            self.by_bytes.setdefault((array.dtype.str, array.tobytes()), []).append((name, array.shape))
        self._blob = None

    def equal(self, array) -> list:
        """Names of the values bit-equal to `array` (same shape after squeezing unit dims)."""
        found = self.by_bytes.get((array.dtype.str, np.ascontiguousarray(array).tobytes()), [])
        squeezed = tuple(d for d in array.shape if d != 1)
        return sorted(name for name, shape in found if tuple(d for d in shape if d != 1) == squeezed)

    def contains(self, array) -> str | None:
        """The name of a value whose bytes hold `array`'s bytes contiguously (aligned), else None."""
        needle = np.ascontiguousarray(array).tobytes()
        for name, value in self.values.items():
            if value.dtype != array.dtype or value.size < array.size:
                continue
            hay = value.tobytes()
            at = hay.find(needle)
            while at >= 0:
                if at % value.dtype.itemsize == 0:
                    return name
                at = hay.find(needle, at + 1)
        return None


def _kept(name: str, array, index: _Index):
    same = index.values.get(name)
    if same is not None and same.dtype == array.dtype and same.size == array.size \
            and same.tobytes() == np.ascontiguousarray(array).tobytes():
        return {"name": name, "as": name}
    others = index.equal(array)
    if others:
        return {"name": name, "as": others[0]}
    if array.ndim == 2 and array.size > 1:
        flipped = index.equal(np.ascontiguousarray(array.T))
        if flipped:
            return {"name": name, "as": flipped[0], "transposed": True}
    return None


def _folded_batchnorms(module, index: _Index, uses: dict) -> dict:
    """{state_dict name: why} for each BatchNorm the graph folded into the Conv before it."""
    import torch

    found, last_conv = {}, None
    conv_weights = [n for n, v in index.values.items() if any(op == "Conv" and i == 1 for op, i, _ in uses.get(n, []))]
    for name, sub in module.named_modules():
        if isinstance(sub, torch.nn.modules.conv._ConvNd):
            last_conv = (name, sub)
            continue
        if not isinstance(sub, torch.nn.modules.batchnorm._BatchNorm) or last_conv is None \
                or last_conv[1].out_channels != sub.num_features or sub.running_var is None:
            continue
        conv_name, conv = last_conv
        with torch.no_grad():
            scale = (sub.weight if sub.weight is not None else 1) / torch.sqrt(sub.running_var + sub.eps)
            folded = (conv.weight * scale.reshape(-1, *[1] * (conv.weight.dim() - 1))).numpy()
        match = next((n for n in conv_weights if index.values[n].shape == folded.shape
                      and np.allclose(index.values[n], folded, rtol=1e-5, atol=1e-7)), None)
        if match is None:
            continue
        why = (f"BatchNorm {name} folded into Conv {conv_name}: the graph's Conv weight {match} is "
               f"{conv_name}.weight scaled by {name}.weight / sqrt({name}.running_var + eps)")
        prefix = f"{name}." if name else ""
        conv_prefix = f"{conv_name}." if conv_name else ""
        for entry in ("weight", "bias", "running_mean", "running_var"):
            found[prefix + entry] = why
        for entry in ("weight", "bias"):
            found[conv_prefix + entry] = why
    return found


def _dropped_zero_bias(name: str, array, kept: dict, uses: dict) -> str | None:
    """Why an all-zero `<layer>.bias` is absent: its layer's weight feeds a Conv/Gemm/ConvTranspose node
    that takes no bias input (the optimiser dropped an addition of zeros), else None."""
    if not name.endswith("bias") or array.size == 0 or np.any(array):
        return None
    weight = kept.get(name[: -len("bias")] + "weight")
    nodes = [(op, count) for op, i, count in uses.get(weight, []) if op in ("Conv", "Gemm", "ConvTranspose") and i == 1]
    if nodes and all(count == 2 for _, count in nodes):
        return (f"an all-zero bias the graph dropped: its weight {weight} feeds {nodes[0][0]} nodes with no bias "
                f"input, the same as adding zeros")
    return None


def _block_counts(module) -> dict:
    """{state_dict name: row blocks} for recurrent weights/biases and MultiheadAttention's in_proj."""
    import torch

    counts = {}
    for name, sub in module.named_modules():
        prefix = f"{name}." if name else ""
        if isinstance(sub, torch.nn.RNNBase):
            gates = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}.get(sub.mode, 1)
            for pname, _ in sub.named_parameters(recurse=False):
                counts[prefix + pname] = (gates, type(sub).__name__)
        if isinstance(sub, torch.nn.MultiheadAttention):
            for pname in ("in_proj_weight", "in_proj_bias"):
                if getattr(sub, pname, None) is not None:
                    counts[prefix + pname] = (3, "MultiheadAttention")
    return counts


def _pieces(array, blocks: int, index: _Index) -> list | None:
    """The values holding each of `array`'s `blocks` row blocks (bit for bit, or transposed), else None."""
    if array.shape[0] % blocks:
        return None
    holders = []
    for piece in np.split(array, blocks, axis=0):
        holder = index.contains(piece)
        if holder is None and piece.ndim == 2:
            flipped = index.equal(np.ascontiguousarray(piece.T))
            holder = flipped[0] + " (transposed)" if flipped else None
        if holder is None:
            return None
        holders.append(holder)
    return holders


def _as_numpy(tensor):
    """A state-dict entry as a numpy array; bfloat16, which numpy lacks, widened exactly to float32."""
    import torch

    tensor = tensor.detach().cpu().contiguous()
    return (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).numpy()


def classify(module, path: str) -> dict:
    """{"kept": [...], "transformed": [...], "missing": [...]} of the module's state_dict against the
    ONNX file at `path` (loaded with its external data)."""
    import onnx
    import torch

    values, ops, uses = _graph_values(onnx.load(path, load_external_data=True))
    index = _Index(values)
    folded = _folded_batchnorms(module, index, uses)
    blocks = _block_counts(module)
    batchnorms = sum(1 for sub in module.modules() if "BatchNorm" in type(sub).__name__)
    result = {"kept": [], "transformed": [], "missing": []}
    state = {name: _as_numpy(tensor) for name, tensor in module.state_dict().items()}
    where = {name: found["as"] for name in state if (found := _kept(name, state[name], index))}
    for name, tensor in module.state_dict().items():
        array = state[name]
        kept = _kept(name, array, index)
        dropped = None if kept is not None else _dropped_zero_bias(name, array, where, uses)
        if kept is not None and name not in folded:
            result["kept"].append(kept)
        elif name in folded:
            result["transformed"].append({"name": name, "why": folded[name]})
        elif dropped is not None:
            result["transformed"].append({"name": name, "why": dropped})
        elif name.endswith("num_batches_tracked") and tensor.dtype == torch.int64 and array.ndim == 0:
            result["transformed"].append({"name": name, "why": (
                f"a BatchNorm's step counter, not read in eval mode; the graph has "
                f"{ops.get('BatchNormalization', 0)} BatchNormalization nodes for {batchnorms} BatchNorm modules")})
        elif name in blocks and array.ndim >= 1 and _pieces(array, blocks[name][0], index):
            holders = sorted(set(_pieces(array, blocks[name][0], index)))
            recurrent = [op for op in RECURRENT_GATES if ops.get(op)]
            how = (f"packed into the graph's {'/'.join(recurrent)} node" if recurrent and blocks[name][1] != "MultiheadAttention"
                   else "split (or decomposed)")
            result["transformed"].append({"name": name, "why": (
                f"{blocks[name][1]} {name}: {how}; each of its {blocks[name][0]} row blocks found bit for bit "
                f"in {', '.join(holders)}")})
        else:
            result["missing"].append(name)
    return result
