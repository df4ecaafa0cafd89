"""The worker's `reference` op: the PyTorch forward parity compares a runtime with (worker/PROTOCOL.md,
`reference`; doc/record-format.md §4 parity).

The §2 network in eval mode under torch.no_grad() on each given float32 input, its raw float32 outputs
handed back bit for bit. The last small network is kept for the next request of the same model and
parameters (`_last_reference`).
"""

from __future__ import annotations

from nnx_worker_dependencies import environment
from nnx_worker_model import ProtocolError, build_model, decode_tensor, describe, model_config
from nnx_worker_tensors import WireTensor, from_torch


def _identical(a, b) -> bool:
    """a == b with the same types throughout: 1, 1.0 and True spell three different requests."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_identical(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_identical, a, b))
    return a == b


# The last reference network, in eval mode, with the model and parameters of the request that built it.
# A run's profiles of one model (its exporters and options) ask for the same network: it is built once.
# Only a reference request builds or reads it, and forwarding under no_grad leaves it as it was. Only a
# small network is kept (its parameters' bytes below KEEP_REFERENCE_BYTES): there building is most of a
# request's cost, while keeping a large one would hold its weights and their text until the next request.
_last_reference = None  # (model, parameters, network)
KEEP_REFERENCE_BYTES = 1 << 20


def _reference_network(cfg: dict, parameters):
    global _last_reference
    if _last_reference is not None and _identical(_last_reference[0], cfg) \
            and _identical(_last_reference[1], parameters):
        return _last_reference[2]
    _last_reference = None  # a request that cannot be built leaves nothing behind
    network = build_model(cfg, parameters, "reference")
    network.eval()
    if sum(entry.nbytes() for entry in parameters) < KEEP_REFERENCE_BYTES:  # all there: it was built
        _last_reference = (cfg, parameters, network)
    return network


def op_reference(req: dict) -> dict:
    """The §2 network in eval mode under torch.no_grad(), on each given float32 input: raw float32
    output frames, bit for bit what PyTorch computed."""
    cfg = model_config(req.get("model"), "reference")
    inputs = req.get("inputs")
    if not isinstance(inputs, list) or not all(isinstance(i, WireTensor) for i in inputs):
        raise ProtocolError("reference: 'inputs' must be a list of tensor frames ({name, frame})")
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"reference: torch is not importable: {describe(exc)}") from None
    model = _reference_network(cfg, req.get("parameters"))
    outputs = []
    with torch.no_grad():
        for entry in inputs:
            x = decode_tensor(entry, f"input {entry.name}", "reference")
            if x.dim() != 2 or x.shape[1] != cfg["input_dim"]:
                raise ProtocolError(f"reference: input {entry.name} shape {list(x.shape)} is not [batch, "
                                    f"{cfg['input_dim']}]")
            outputs.append(from_torch(entry.name, model(x).float()))
    return {"ok": True, "outputs": outputs, "environment": environment({})}
