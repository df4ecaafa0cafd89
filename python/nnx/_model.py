"""The PyTorch network of a model config with the core's deterministic weights (:func:`build_model`); torch is
imported only when a network is built."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _core
from ._boundary import _dumps
from ._vocabulary import MODEL


def build_model(config: Mapping[str, Any] = MODEL) -> "BuiltModel":
    """The PyTorch network of a model config (doc/record-format.md §2) holding its deterministic weights, as
    a :class:`BuiltModel` (``.net``, ``.config``, ``.weights_sha256``, ``.parameter_shapes``). The weights are
    the core's PyTorch-exact draws (``torch.randn(shape, generator=Generator().manual_seed(seed)) * std``
    per parameter in order), handed over as raw float32 bytes; the network class is the one the exporter
    worker exports (``nnx/_worker/nnx_torch_model.py``). torch is imported here, not when nnx is imported.
    Refused (:class:`ConformanceError`): an invalid config, or one whose ``weights_sha256`` (a record's
    config carries one) differs from its weights' digest."""
    parameters, digest, full = _core.model_weights(_dumps(config, "the model config"))
    import torch

    tensors = [
        (name, tuple(shape), torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(shape))
        for name, shape, raw in parameters
    ]
    full_config = json.loads(full)
    net = _torch_model().build_network(full_config, tensors)
    return BuiltModel(net=net, config=full_config, weights_sha256=digest,
                      parameter_shapes=tuple((name, shape) for name, shape, _ in tensors))


@dataclass(frozen=True)
class BuiltModel:
    """What :func:`build_model` returns: ``net`` the ``torch.nn.Module`` (train mode, as PyTorch makes it;
    call ``net.eval()`` for the reference forward), ``config`` the full model config with its
    ``weights_sha256``, and ``parameter_shapes`` the (name, shape) pairs in PyTorch's order."""

    net: Any
    config: dict[str, Any]
    weights_sha256: str
    parameter_shapes: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def device(self) -> Any:
        """Where the network's parameters are (the CPU)."""
        return next(self.net.parameters()).device


_TORCH_MODEL: Any = None


def _torch_model() -> Any:
    """The package's nnx/_worker/nnx_torch_model.py (the network class the worker exports), loaded once."""
    global _TORCH_MODEL
    if _TORCH_MODEL is None:
        import importlib.util

        path = Path(__file__).resolve().parent / "_worker" / "nnx_torch_model.py"
        spec = importlib.util.spec_from_file_location("nnx._torch_model", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the network module {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules.setdefault("nnx._torch_model", module)
        _TORCH_MODEL = sys.modules["nnx._torch_model"]
    return _TORCH_MODEL
