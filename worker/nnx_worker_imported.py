"""The worker's side of an imported ONNX file checked against a module factory (worker/PROTOCOL.md,
"module_export of an imported file"; doc/record-format.md §11): the core has already copied the user's
model.onnx into the profile folder; the child builds the module, computes PyTorch's reference and the
float64 oracle on the drawn cases, and classifies the module's state dict against that file's initializers
(nnx_worker_weights.py). Nothing is exported and no state proof is made: the file is the user's own.

`bind` names, for each graph input in order, the forward parameter it is given to: the worker's one binding
rule (nnx_worker_bind.py) gives each input to the parameter of that name, by position or by keyword.
"""

from __future__ import annotations

import os

from nnx_worker_model import ProtocolError


def parse_bind(req: dict, specs: list, op: str):
    """The request's `bind` (null, or one distinct non-empty parameter name per input) and `imported` flag."""
    bind, imported = req.get("bind"), req.get("imported", False)
    if not isinstance(imported, bool):
        raise ProtocolError(f"{op}: 'imported' must be a boolean")
    if bind is not None and (not isinstance(bind, list) or len(bind) != len(specs) or len(set(bind)) != len(bind)
                             or not all(isinstance(b, str) and b for b in bind)):
        raise ProtocolError(f"{op}: 'bind' must be null or one distinct parameter name per input")
    return bind, imported


def imported_work(plan: dict, answer: dict, module, steps, oracle) -> dict:
    """The steps after the reference for an imported file: the oracle, then the weights against the file."""
    import nnx_worker_weights

    answer["oracle"], answer["oracle_missing"] = oracle(module, plan["cases"], answer["output_names"],
                                                        plan["binding"])
    steps.done("oracle")
    if not os.path.isfile(plan["path"]):
        answer["exception"] = f"the imported file {plan['path']} is not there"
        return answer
    answer["wrote_model"] = True
    try:
        answer["weights"] = nnx_worker_weights.classify(module, plan["path"])
    except Exception as exc:  # noqa: BLE001 - a graph the classifier cannot read: say so, keep the rest
        answer["warnings"] = [f"nnx: weights not classified: {type(exc).__name__}: {exc}"]
    steps.done("weights")
    return answer
