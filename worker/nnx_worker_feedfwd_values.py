"""The worker's `reference_intermediates` op (worker/LOCALISATION.md, "reference_intermediates"; doc/localisation.md):
PyTorch's side of a localisation of the built-in network's record (the tested profiles). The §2 network built
from the request's model and parameters (as `reference` builds it: our own code, no fork), then, on the one
input, every intermediate value as module_intermediates gives it (nnx_worker_intermediates.intermediates):
dynamo, the network exported again with the record's options and its program run node by node; TorchScript,
a value per submodule (`layers.<k>`, the Linear layers: the activations are functions, so they are inside a
layer's value's successors) and the network's output under the exporter's output name.

Request: {op, model, parameters (frames), inputs: [one float32 frame], exporter, options: the record's exporter
options (opset_version, dynamic_batch, input_names, output_names), values_to}. Answer: module_intermediates'
values, granularity, oracle_missing, skipped, step_seconds; `exception` when the values cannot be computed.
"""

from __future__ import annotations

import os

from nnx_worker_model import ProtocolError, build_model, decode_tensor, model_config
from nnx_worker_tensors import WireTensor

OP = "reference_intermediates"


class _Binding:
    """The network's one positional input (what nnx_worker_intermediates asks of a module's binding)."""

    @staticmethod
    def args(inputs: list) -> tuple:
        return (inputs[0],)

    @staticmethod
    def kwargs(inputs: list) -> dict:
        return {}

    @staticmethod
    def call(module, inputs: list):
        return module(inputs[0])


def _options(req: dict) -> tuple:
    exporter, options = req.get("exporter"), req.get("options")
    if exporter not in ("torchscript", "dynamo"):
        raise ProtocolError(f"{OP}: unknown exporter {exporter!r} (torchscript or dynamo)")
    if not isinstance(options, dict) or not isinstance(options.get("opset_version"), int):
        raise ProtocolError(f"{OP}: 'options' must be the record's exporter options")
    for key in ("input_names", "output_names"):
        names = options.get(key)
        if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
            raise ProtocolError(f"{OP}: options.{key} must hold exactly one name")
    return exporter, options


def op_reference_intermediates(req: dict) -> dict:
    """Every intermediate value of the §2 network on the one input, and its float64 counterpart."""
    from nnx_worker_intermediates import intermediates
    from nnx_worker_module_load import ModuleProblem

    cfg = model_config(req.get("model"), OP)
    exporter, options = _options(req)
    inputs, values_to = req.get("inputs"), req.get("values_to")
    if not isinstance(inputs, list) or len(inputs) != 1 or not isinstance(inputs[0], WireTensor):
        raise ProtocolError(f"{OP}: 'inputs' must hold exactly one tensor frame")
    if not isinstance(values_to, str) or not os.path.isabs(values_to):
        raise ProtocolError(f"{OP}: 'values_to' must be an absolute path")
    decode_tensor(inputs[0], "input", OP)  # a float32 tensor, or ProtocolError
    network = build_model(cfg, req.get("parameters"), OP)
    network.eval()

    def export_arguments(example: list, plan: dict, names: list) -> tuple:
        import torch

        dynamic = ({0: torch.export.Dim("batch", min=1)},) if options.get("dynamic_batch") else None
        return (example[0],), {"opset_version": options["opset_version"], "dynamic_shapes": dynamic,
                               "input_names": list(options["input_names"]), "output_names": list(names)}

    plan = {"cases": [{"tensors": inputs}], "values_to": values_to, "exporter": exporter, "binding": _Binding(),
            "output_names": list(options["output_names"])}
    answer = {"ok": True, "exception": None, "values": [], "granularity": None, "oracle_missing": None, "skipped": []}
    try:
        intermediates(network, plan, answer, export_arguments)
    except ModuleProblem as problem:
        answer["exception"] = str(problem)
    return answer
