"""A request's network and tensors, for the worker's ops (worker/PROTOCOL.md; doc/record-format.md §2).

Everything here checks what a request carries before it is used: `model_config` (the feed_fwd config),
`decode_tensor` (base64 little-endian float32 of a given shape), `build_model` (the network holding exactly
the given parameters); `encode_tensor` is the way back. A request that does not fit raises ProtocolError,
which the worker answers with {"ok": false, "error": str(exc)}. torch and numpy are imported only when a
tensor is decoded or a network built.
"""

from __future__ import annotations

import base64

import nnx_torch_model  # beside the worker script (sys.path[0]); imports no torch until a network is built

ACTIVATIONS = nnx_torch_model.ACTIVATIONS


class ProtocolError(Exception):
    """A request the worker cannot serve: answered with {"ok": false, "error": str(exc)}."""


def describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def feedfwd_class():
    """FeedFwdNN of doc/record-format.md §2 (worker/nnx_torch_model.py), defined on first use."""
    return nnx_torch_model.feedfwd_class()


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def model_config(cfg, op: str = "export") -> dict:
    if not isinstance(cfg, dict):
        raise ProtocolError(f"{op}: 'model' must be an object")
    if cfg.get("net") != "feed_fwd":
        raise ProtocolError(f"{op}: unknown net {cfg.get('net')!r} (only 'feed_fwd')")
    dims = [cfg.get("input_dim"), *(cfg.get("hidden_dims") or []), cfg.get("output_dim")]
    if not isinstance(cfg.get("hidden_dims"), list) or not all(is_int(d) and d >= 1 for d in dims):
        raise ProtocolError(f"{op}: input_dim, hidden_dims and output_dim must be positive integers")
    if cfg.get("activation") not in ACTIVATIONS:
        raise ProtocolError(f"{op}: unknown activation {cfg.get('activation')!r}")
    dropout = cfg.get("dropout")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        raise ProtocolError(f"{op}: dropout must be a number in [0, 1)")
    return cfg


def decode_tensor(entry, what: str, op: str = "export"):
    import numpy as np
    import torch

    if not isinstance(entry, dict) or not isinstance(entry.get("shape"), list) \
            or not all(is_int(d) and d >= 0 for d in entry["shape"]) or not isinstance(entry.get("data"), str):
        raise ProtocolError(f"{op}: {what} needs 'shape' (list of sizes) and 'data' (base64)")
    try:
        raw = base64.b64decode(entry["data"], validate=True)
    except ValueError as exc:
        raise ProtocolError(f"{op}: {what}: data is not base64: {exc}") from None
    count = 1
    for d in entry["shape"]:
        count *= d
    if len(raw) != 4 * count:
        raise ProtocolError(f"{op}: {what}: {len(raw)} bytes for shape {entry['shape']} "
                            f"(expected {4 * count} bytes of float32)")
    array = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(entry["shape"])
    return torch.from_numpy(array.copy())


def build_model(cfg: dict, parameters, op: str = "export"):
    """The §2 network holding exactly the given parameters (names, order and shapes must match)."""
    if not isinstance(parameters, list):
        raise ProtocolError(f"{op}: 'parameters' must be a list")
    decoded = []
    for entry in parameters:
        if not isinstance(entry, dict):
            raise ProtocolError(f"{op}: every parameter must be an object")
        name = entry.get("name")
        decoded.append((name, entry.get("shape"), decode_tensor(entry, f"parameter {name}", op)))
    try:
        return nnx_torch_model.build_network(cfg, decoded)
    except ValueError as exc:
        raise ProtocolError(f"{op}: {exc}") from None


def encode_tensor(tensor) -> dict:
    array = tensor.detach().cpu().contiguous().numpy().astype("<f4", copy=False)
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode("ascii")}
