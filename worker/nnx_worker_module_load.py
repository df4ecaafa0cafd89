"""A module profile's module in its forked child (worker/PROTOCOL.md, "Module profiles"): the factory
imported and called, the module's identity, and its PyTorch reference and FP64 oracle as wire tensors
(nnx_worker_tensors.py, the worker's one tensor wire).

torch is imported only inside the functions (the worker imports none of it at start-up).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import os
import sys

from nnx_worker_model import describe
from nnx_worker_tensors import WireError, from_torch


class ModuleProblem(Exception):
    """What the module did wrong; answered as `exception` (or `import_error` when `importing`)."""

    def __init__(self, text: str, importing: bool = False):
        super().__init__(text)
        self.importing = importing


def encode_wire(name: str, tensor, what: str):
    """A torch tensor on the wire; ModuleProblem naming `what` for a dtype the wire has no name for or a
    tensor over its 64 MiB per tensor (doc/record-format.md §10)."""
    try:
        return from_torch(name, tensor)
    except WireError as exc:
        raise ModuleProblem(f"{what} {exc}") from None


# --------------------------------------------------------------------------------------------
# the factory


def _import_file(path: str):
    name = os.path.splitext(os.path.basename(path))[0]  # the child is fresh: the stem is unique if unused
    if not name.isidentifier() or name in sys.modules:
        name = "nnx_profile_" + hashlib.sha256(path.encode("utf-8", errors="replace")).hexdigest()[:16]
    folder = os.path.dirname(path)
    if folder not in sys.path[:1]:
        sys.path.insert(0, folder)  # the file's sibling imports
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_factory(factory: str, factory_path):
    """(the factory callable, the source file hashed for `source_sha256` or None)."""
    where, _, attr = factory.rpartition(":")
    try:
        if factory_path is not None:
            holder, source = _import_file(factory_path), factory_path
        else:
            holder = importlib.import_module(where)
            source = getattr(holder, "__file__", None)
    except BaseException as exc:  # noqa: BLE001 - SystemExit in a module's import counts too
        raise ModuleProblem(describe(exc), importing=True) from None
    if not hasattr(holder, attr):
        raise ModuleProblem(f"{where} has no factory named {attr}")
    return getattr(holder, attr), source


def build_module(factory: str, factory_path):
    """(the module the factory returns, its identity)."""
    import torch

    make, source = load_factory(factory, factory_path)
    try:
        module = make()
    except Exception as exc:  # noqa: BLE001
        raise ModuleProblem(f"the factory raised {describe(exc)}") from None
    if not isinstance(module, torch.nn.Module):
        raise ModuleProblem(f"the factory returned {type(module).__module__}.{type(module).__qualname__}, "
                            f"not a torch.nn.Module")
    return module, identity(module, source)


def _file_sha256(path):
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def raw_bytes(tensor) -> bytes:
    """The raw bytes of a contiguous CPU tensor of any dtype (bfloat16 included)."""
    import torch

    return tensor.reshape(-1).view(torch.uint8).numpy().tobytes()


def identity(module, source) -> dict:
    digest = hashlib.sha256()
    for name, value in module.state_dict().items():
        t = value.detach().cpu().contiguous()
        digest.update(f"{name}|{str(t.dtype).replace('torch.', '')}|{list(t.shape)}|".encode())
        digest.update(raw_bytes(t))
    cls = type(module)
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "source_sha256": _file_sha256(source),
            "state_sha256": digest.hexdigest()}


# --------------------------------------------------------------------------------------------
# reference and oracle


def forward_leaves(module, inputs) -> list:
    """The module in eval mode under no_grad on positional `inputs`: its output's pytree leaves (a tensor;
    tuple/list in order; dict in insertion order; nested as torch.utils._pytree flattens), all tensors."""
    try:
        out = _forward(module, inputs)
    except Exception as exc:  # noqa: BLE001
        raise ModuleProblem(f"the module's forward raised {describe(exc)}") from None
    return _tensor_leaves(out)


def _forward(module, inputs):
    import torch

    module.eval()
    with torch.no_grad():
        return module(*inputs)


def _tensor_leaves(out) -> list:
    import torch
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten(out)
    for k, leaf in enumerate(leaves):
        if not isinstance(leaf, torch.Tensor):
            raise ModuleProblem(f"the module's output {k} is a {type(leaf).__name__}, not a tensor")
    return leaves


def output_names(given, count: int) -> list:
    if given is None:
        return [f"output_{k}" for k in range(count)]
    if len(given) != count:
        raise ModuleProblem(f"the profile names {len(given)} outputs but the module returns {count}")
    return list(given)


def references(module, cases: list, given_names) -> tuple:
    """(the output names, [{"name": case, "outputs": [wire tensor]}]) of the pristine module."""
    answers, names = [], None
    for case in cases:
        leaves = forward_leaves(module, case["tensors"])
        case_names = output_names(given_names, len(leaves))
        if names is not None and len(case_names) != len(names):
            raise ModuleProblem(f"case {case['name']} gives {len(case_names)} outputs, an earlier case {len(names)}")
        names = case_names
        answers.append({"name": case["name"], "outputs": [
            encode_wire(n, t, f"output {n} of case {case['name']}") for n, t in zip(names, leaves)]})
    return names, answers


def oracle(module, cases: list, names: list) -> tuple:
    """(the FP64 oracle's answers or None, why it is missing or None): a deep copy in float64, floating
    inputs cast to float64, integer inputs as they are."""
    try:
        double = copy.deepcopy(module).double()
        answers = []
        for case in cases:
            inputs = [t.double() if t.is_floating_point() else t for t in case["tensors"]]
            leaves = _tensor_leaves(_forward(double, inputs))
            if len(leaves) != len(names):
                raise ModuleProblem(f"the float64 copy returns {len(leaves)} outputs, not {len(names)}")
            answers.append({"name": case["name"], "outputs": [
                encode_wire(n, t.double() if t.is_floating_point() else t, f"oracle output {n} of case "
                            f"{case['name']}") for n, t in zip(names, leaves)]})
        return answers, None
    except ModuleProblem as exc:
        if "limit" in str(exc):
            raise
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001
        return None, describe(exc)
