"""A module profile's module in its forked child (worker/PROTOCOL.md, "Module profiles"): the factory
imported and called, the module's identity, and its PyTorch reference and FP64 oracle, one case at a time:
as stored tensor files in the profile folder for module_export (nnx_worker_tensor_files.py), as wire tensors
for module_reference (nnx_worker_tensors.py).

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
from nnx_worker_scores import ScoreTracer, scores_of
from nnx_worker_tensor_files import FileTensor, load, write_tensor_file
from nnx_worker_tensors import WireError, from_torch, to_torch


class ModuleProblem(Exception):
    """What the module did wrong; answered as `exception` (or `import_error` when `importing`)."""

    def __init__(self, text: str, importing: bool = False):
        super().__init__(text)
        self.importing = importing


# --------------------------------------------------------------------------------------------
# the factory


class SourceChanged(ModuleProblem):
    """The factory's file holds other bytes than the caller expected (module_reference's `source_sha256`):
    refused before they run."""

    def __init__(self, path: str, digest: str, expected: str):
        super().__init__(f"{path} now holds bytes whose sha256 is {digest}, not the record's {expected}: "
                         f"not imported")
        self.digest = digest


def _import_file(path: str, expected_sha256):
    """The module of the file at `path`, and the sha256 of the very bytes it was executed from (read once:
    a file rewritten during or after its import changes neither)."""
    name = os.path.splitext(os.path.basename(path))[0]  # the child is fresh: the stem is unique if unused
    if not name.isidentifier() or name in sys.modules:
        name = "nnx_profile_" + hashlib.sha256(path.encode("utf-8", errors="replace")).hexdigest()[:16]
    with open(path, "rb") as f:
        source = f.read()
    digest = hashlib.sha256(source).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise SourceChanged(path, digest, expected_sha256)
    folder = os.path.dirname(path)
    if folder not in sys.path[:1]:
        sys.path.insert(0, folder)  # the file's sibling imports
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 - the user's factory
    return module, digest


def load_factory(factory: str, factory_path, expected_sha256=None):
    """(the factory callable, the sha256 of its source for `source_sha256` or None). A FILE.py factory's
    digest is of the bytes executed; `expected_sha256` given, other bytes are refused before they run
    (SourceChanged). A package's is its file's after the import."""
    where, _, attr = factory.rpartition(":")
    try:
        if factory_path is not None:
            holder, digest = _import_file(factory_path, expected_sha256)
        else:
            holder = importlib.import_module(where)
            digest = _file_sha256(getattr(holder, "__file__", None))
    except SourceChanged:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit in a module's import counts too
        raise ModuleProblem(describe(exc), importing=True) from None
    if not hasattr(holder, attr):
        raise ModuleProblem(f"{where} has no factory named {attr}")
    return getattr(holder, attr), digest


def build_module(factory: str, factory_path, expected_sha256=None):
    """(the module the factory returns, its identity)."""
    import torch

    make, digest = load_factory(factory, factory_path, expected_sha256)
    if isinstance(make, torch.nn.Module):  # calling it would run its forward with no input
        cls = type(make)
        name = factory.rpartition(":")[2]
        raise ModuleProblem(f"{factory} is an nn.Module instance ({cls.__module__}.{cls.__qualname__}), not a factory: "
                            f"name a function of no argument that returns the module instead (in its file: "
                            f"def make_{name}(): return {name}), or check the object from Python with check_module")
    try:
        module = make()
    except BaseException as exc:  # noqa: BLE001 - SystemExit from the factory is the factory's failure too
        raise ModuleProblem(f"the factory raised {describe(exc)}") from None
    if not isinstance(module, torch.nn.Module):
        raise ModuleProblem(f"the factory returned {type(module).__module__}.{type(module).__qualname__}, "
                            f"not a torch.nn.Module")
    return module, identity(module, digest)


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


def identity(module, source_sha256) -> dict:
    digest = hashlib.sha256()
    for name, value in module.state_dict().items():
        t = value.detach().cpu().contiguous()
        digest.update(f"{name}|{str(t.dtype).replace('torch.', '')}|{list(t.shape)}|".encode())
        digest.update(raw_bytes(t))
    cls = type(module)
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "source_sha256": source_sha256,
            "state_sha256": digest.hexdigest()}


# --------------------------------------------------------------------------------------------
# reference and oracle


def forward_leaves(module, inputs, binding=None) -> list:
    """The module in eval mode under no_grad on `inputs` given as `binding` says (nnx_worker_bind.py; None:
    by position): its output's pytree leaves (a tensor; tuple/list in order; dict in insertion order; nested
    as torch.utils._pytree flattens), all tensors."""
    try:
        out = _forward(module, inputs, binding)
    except Exception as exc:  # noqa: BLE001
        raise ModuleProblem(f"the module's forward raised {describe(exc)}") from None
    return _tensor_leaves(out)


def _forward(module, inputs, binding):
    import torch

    module.eval()
    with torch.no_grad():
        return module(*inputs) if binding is None else binding.call(module, inputs)


def _tensor_leaves(out) -> list:
    import torch
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten(out)
    for k, leaf in enumerate(leaves):
        if not isinstance(leaf, torch.Tensor):
            raise ModuleProblem(f"the module's output {k} is a {type(leaf).__name__}, not a tensor")
    return leaves


def output_paths(out):
    """Stable names of a nested output's tensors, each its path through the output joined by '.': a dict's
    (or a ModelOutput's) key, a tuple's or list's index (`logits`, `past_key_values.0.key`), an index at the
    top read `output_<k>` (`output_1.prod`: a bare number would be a name the exporters give their own
    values). None when no dict is on any path (a tensor or tuples of tensors keep `output_<k>`, the names
    records have always had) or when two paths would read alike."""
    from torch.utils._pytree import GetAttrKey, MappingKey, SequenceKey, tree_flatten_with_path

    def part(key) -> str:
        if isinstance(key, MappingKey):
            return str(key.key)
        if isinstance(key, SequenceKey):
            return str(key.idx)
        return str(key.name) if isinstance(key, GetAttrKey) else str(key)

    paths, _ = tree_flatten_with_path(out)
    if not any(isinstance(key, (MappingKey, GetAttrKey)) for path, _ in paths for key in path):
        return None
    names = [".".join(("output_" if k == 0 and isinstance(key, SequenceKey) else "") + part(key)
                      for k, key in enumerate(path)) for path, _ in paths]
    return names if len(set(names)) == len(names) and all(names) else None


def output_names(given, count: int, paths=None) -> list:
    """The profile's output names, else the output's own paths (output_paths), else `output_<k>`."""
    if given is None:
        return list(paths) if paths else [f"output_{k}" for k in range(count)]
    if len(given) != count:
        raise ModuleProblem(f"the profile names {len(given)} outputs but the module returns {count}")
    return list(given)


def named_outputs(module, inputs, given_names, binding=None) -> tuple:
    """(the output names, the leaves) of the module's output on `inputs` (forward_leaves; output_names)."""
    try:
        out = _forward(module, inputs, binding)
    except Exception as exc:  # noqa: BLE001
        raise ModuleProblem(f"the module's forward raised {describe(exc)}") from None
    leaves = _tensor_leaves(out)
    return output_names(given_names, len(leaves), output_paths(out)), leaves


def torch_tensors(tensors: list) -> list:
    """A request's tensors (a case's inputs, the example) as torch tensors, each in its own memory: read from
    its stored file (module_export, nnx_worker_tensor_files.py) or its wire frame (module_reference)."""
    return [load(t) if isinstance(t, FileTensor) else to_torch(t) for t in tensors]


class StoreProblem(Exception):
    """A case tensor that could not be written (a full disk, a file size limit): the tool's own step, never
    the module's; answered as `store_error`."""


def _keep(case: dict, to: str, j: int, name: str, tensor, what: str):
    """An output of a case: written as the file <to>/output_<j>.pb in the profile folder when the case names
    one (module_export), else a wire tensor (module_reference); ModuleProblem naming `what` past a limit,
    StoreProblem when the file cannot be written."""
    folder = case.get(to)
    try:
        if folder is None:
            return from_torch(name, tensor)
        return write_tensor_file(case["output_dir"], f"{folder}/output_{j}.pb", name, tensor)
    except WireError as exc:
        raise ModuleProblem(f"{what} {exc}") from None
    except OSError as exc:
        raise StoreProblem(f"{what} cannot be written to {folder}/output_{j}.pb: {describe(exc)}") from None


def references(module, cases: list, given_names, binding=None) -> tuple:
    """(the output names, [{"name": case, "outputs": [tensor]}]) of the pristine module, one case at a time:
    its inputs read, its outputs kept (_keep) and let go before the next case's are read."""
    answers, names = [], None
    for case in cases:
        case_names, leaves = named_outputs(module, torch_tensors(case["tensors"]), given_names, binding)
        if names is not None and len(case_names) != len(names):
            raise ModuleProblem(f"case {case['name']} gives {len(case_names)} outputs, an earlier case {len(names)}")
        names = case_names
        answers.append({"name": case["name"], "outputs": [
            _keep(case, "outputs_to", j, n, t, f"output {n} of case {case['name']}")
            for j, (n, t) in enumerate(zip(names, leaves))]})
        del leaves
    return names, answers


def _oracle_output(case: dict, j: int, name: str, leaf, tracer, what: str):
    """A floating output in float64; an integer or bool one as the float64 scores its index was chosen from
    (nnx_worker_scores.py), or None where the oracle cannot tell."""
    if leaf.is_floating_point():
        return _keep(case, "oracle_to", j, name, leaf.double(), what)
    scores = scores_of(tracer, leaf)
    return None if scores is None else _keep(case, "oracle_to", j, name, scores, what)


def oracle(module, cases: list, names: list, binding=None) -> tuple:
    """(the FP64 oracle's answers or None, why it is missing or None): a deep copy in float64, floating
    inputs cast to float64, integer inputs as they are; an integer output's oracle is its scores or None."""
    try:
        double = copy.deepcopy(module).double()
        answers = []
        for case in cases:
            inputs = [t.double() if t.is_floating_point() else t for t in torch_tensors(case["tensors"])]
            tracer = ScoreTracer()
            with tracer:
                leaves = _tensor_leaves(_forward(double, inputs, binding))
            if len(leaves) != len(names):
                raise ModuleProblem(f"the float64 copy returns {len(leaves)} outputs, not {len(names)}")
            answers.append({"name": case["name"], "outputs": [
                _oracle_output(case, j, n, t, tracer, f"oracle output {n} of case {case['name']}")
                for j, (n, t) in enumerate(zip(names, leaves))]})
            del inputs, leaves
        return answers, None
    except StoreProblem:
        raise
    except ModuleProblem as exc:
        if "limit" in str(exc):
            raise
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001
        return None, describe(exc)
