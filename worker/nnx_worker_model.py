"""A request's network and tensors, for the worker's ops (worker/PROTOCOL.md; doc/record-format.md §2).

Everything here checks what a request carries before it is used: `model_config` (the feed_fwd config),
`decode_tensor` (a float32 tensor of the wire, nnx_worker_tensors.py), `build_model` (the network holding
exactly the given parameters). A request that does not fit raises ProtocolError,
which the worker answers with {"ok": false, "error": str(exc)}. torch and numpy are imported only when a
tensor is decoded or a network built.
"""

from __future__ import annotations

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
    """The torch tensor of a float32 wire tensor (nnx_worker_tensors.WireTensor)."""
    from nnx_worker_tensors import WireTensor, to_torch

    if not isinstance(entry, WireTensor) or entry.dtype != "float32":
        raise ProtocolError(f"{op}: {what} must be a float32 tensor frame ({{'name', 'frame'}})")
    return to_torch(entry)


def build_model(cfg: dict, parameters, op: str = "export"):
    """The §2 network holding exactly the given parameters (names, order and shapes must match)."""
    if not isinstance(parameters, list):
        raise ProtocolError(f"{op}: 'parameters' must be a list")
    decoded = []
    for entry in parameters:
        name = getattr(entry, "name", None)
        tensor = decode_tensor(entry, f"parameter {name}", op)
        decoded.append((name, entry.shape, tensor))
    try:
        return nnx_torch_model.build_network(cfg, decoded)
    except ValueError as exc:
        raise ProtocolError(f"{op}: {exc}") from None
