"""A module request's fields checked (worker/PROTOCOL.md, "module_export", "module_reference"), in the worker
before anything runs in the child: the factory, the input specs and dims, the output names, the cases and the
example. module_export's tensors are the stored tensor files the core wrote in the profile folder (their
headers read here, their data in the child: nnx_worker_tensor_files.py); module_reference's are frames.
"""

from __future__ import annotations

import os
import re

from nnx_worker_imported import parse_bind
from nnx_worker_model import ProtocolError, describe, is_int
from nnx_worker_precision import parse_precision
from nnx_worker_tensor_files import read_header
from nnx_worker_tensors import DTYPES, WireError, WireTensor

EXPORTERS = ("torchscript", "dynamo")
PLAIN_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
# The core's factory rule (src/profile/module_factory.h): split at the last colon, any path but NUL.
FACTORY = re.compile(r"(?P<where>[^\0]+):(?P<attr>[A-Za-z_][A-Za-z0-9_]*)", re.DOTALL)
PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _factory(req: dict, op: str) -> tuple:
    factory, path = req.get("factory"), req.get("factory_path")
    found = FACTORY.fullmatch(factory) if isinstance(factory, str) else None
    if found is None:
        raise ProtocolError(f"{op}: 'factory' must be FILE.py:FACTORY or package.module:FACTORY")
    if found.group("where").endswith(".py"):
        if not isinstance(path, str) or not os.path.isabs(path):
            raise ProtocolError(f"{op}: 'factory_path' must be the absolute path of {found.group('where')}")
    elif path is not None or not PACKAGE.fullmatch(found.group("where")):
        raise ProtocolError(f"{op}: a package.module factory needs a dotted module name and factory_path null")
    return factory, path


def _expected_source(req: dict, op: str):
    """module_reference's `source_sha256`: the digest the factory file's bytes must have to be imported."""
    expected = req.get("source_sha256")
    if expected is not None and (op == "module_export" or not isinstance(expected, str)
                                 or not re.fullmatch(r"[0-9a-f]{64}", expected)):
        raise ProtocolError(f"{op}: 'source_sha256' must be null or 64 lowercase hex digits (module_reference and module_intermediates only)")
    return expected


def _specs(req: dict, op: str, dims: dict) -> list:
    specs = req.get("inputs")
    if not isinstance(specs, list) or not specs:
        raise ProtocolError(f"{op}: 'inputs' must be a non-empty list of {{name, shape, dtype}}")
    for spec in specs:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"] \
                or spec.get("dtype") not in DTYPES or not isinstance(spec.get("shape"), list):
            raise ProtocolError(f"{op}: every input needs 'name', 'shape' and 'dtype' ({', '.join(DTYPES)})")
        for d in spec["shape"]:
            if not (is_int(d) and d >= 0) and not (isinstance(d, str) and (dims is None or d in dims)):
                raise ProtocolError(f"{op}: input {spec['name']}: shape entry {d!r} is neither a size nor a "
                                    f"dim named in 'dims'")
    if len({spec["name"] for spec in specs}) != len(specs):
        raise ProtocolError(f"{op}: input names repeat")
    return specs


def _dims(req: dict, op: str) -> dict:
    entries = req.get("dims")
    if not isinstance(entries, list):
        raise ProtocolError(f"{op}: 'dims' must be a list of [name, [values]]")
    dims = {}
    for entry in entries:
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str) or not entry[0] \
                or not isinstance(entry[1], list) or not entry[1] or not all(is_int(v) and v >= 0 for v in entry[1]):
            raise ProtocolError(f"{op}: every dim must be [name, [sizes, ...]] with at least one size")
        dims[entry[0]] = entry[1]
    return dims


def _relative(text, what: str, op: str) -> str:
    """A path in the profile folder as the core names it: '/'-separated plain names, none "." or ".."."""
    if not isinstance(text, str) or not all(PLAIN_NAME.match(p) and p not in (".", "..") for p in text.split("/")):
        raise ProtocolError(f"{op}: {what} must be a path of plain names relative to 'output_dir'")
    return text


def _tensor(entry, spec: dict, what: str, op: str, output_dir):
    """A request's tensor: module_export's a stored tensor file the core wrote in the profile folder, its
    header read here and its data in the child (nnx_worker_tensor_files.py); module_reference's a frame."""
    if output_dir is None:
        if not isinstance(entry, WireTensor):
            raise ProtocolError(f"{op}: {what} {spec['name']} must be a tensor frame ({{name, frame}})")
        return entry
    if not isinstance(entry, dict) or entry.keys() != {"name", "file"} or entry["name"] != spec["name"]:
        raise ProtocolError(f"{op}: {what} {spec['name']} must be a stored tensor file ({{name, file}})")
    try:
        return read_header(os.path.join(output_dir, _relative(entry["file"], f"{what} {spec['name']}", op)))
    except (OSError, WireError) as exc:
        raise ProtocolError(f"{op}: {what} {spec['name']}: {describe(exc)}") from None


def _tensors(entries, specs: list, what: str, op: str, output_dir, sizes=None) -> list:
    if not isinstance(entries, list) or len(entries) != len(specs):
        raise ProtocolError(f"{op}: {what} must hold one tensor per input ({len(specs)})")
    tensors = []
    for spec, entry in zip(specs, entries):
        tensor = _tensor(entry, spec, what, op, output_dir)
        wanted = [sizes[d] if isinstance(d, str) and sizes else d for d in spec["shape"]]
        fits = len(wanted) == len(tensor.shape) and all(not is_int(w) or w == n for w, n in zip(wanted, tensor.shape))
        if tensor.dtype != spec["dtype"] or not fits:
            raise ProtocolError(f"{op}: {what} {spec['name']} is {tensor.dtype} {tensor.shape}, "
                                f"not {spec['dtype']} {wanted}")
        tensors.append(tensor)
    return tensors


def _cases(req: dict, specs: list, op: str, output_dir) -> list:
    """The cases, each with its tensors and, for module_export, the folders its outputs and their float64
    oracle copies are written to (`outputs_to`, `oracle_to`: relative to output_dir)."""
    cases = req.get("cases")
    if not isinstance(cases, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in cases):
        raise ProtocolError(f"{op}: 'cases' must be a list of {{name, inputs}}")
    plans = []
    for c in cases:
        plan = {"name": c["name"], "tensors": _tensors(c.get("inputs"), specs, f"case {c['name']} input", op, output_dir)}
        if output_dir is not None:
            plan.update(output_dir=output_dir, outputs_to=_relative(c.get("outputs_to"), "'outputs_to'", op),
                        oracle_to=_relative(c.get("oracle_to"), "'oracle_to'", op))
        plans.append(plan)
    return plans


def _output_names(req: dict, op: str):
    names = req.get("output_names")
    if names is not None and (not isinstance(names, list) or not names or len(set(names)) != len(names)
                              or not all(isinstance(n, str) and n for n in names)):
        raise ProtocolError(f"{op}: 'output_names' must be null or a list of distinct names")
    return names


def _output_dir(req: dict, op: str):
    """module_export's absolute profile folder (None for module_reference, which has none)."""
    if op != "module_export":
        return None
    output_dir = req.get("output_dir")
    if not isinstance(output_dir, str) or not os.path.isabs(output_dir):
        raise ProtocolError(f"{op}: 'output_dir' must be an absolute path")
    return output_dir


def _intermediates_plan(req: dict, plan: dict, dims: dict, exporter, opset) -> dict:
    """module_intermediates' own fields: the record's exporter and opset (the dynamo export is made again),
    its dims, and the absolute folder the values are written to; exactly one case."""
    op = "module_intermediates"
    values_to = req.get("values_to")
    if exporter not in EXPORTERS:
        raise ProtocolError(f"{op}: unknown exporter {exporter!r} (torchscript or dynamo)")
    if not is_int(opset) or opset < 1:
        raise ProtocolError(f"{op}: 'opset_version' must be a positive integer")
    if not isinstance(values_to, str) or not os.path.isabs(values_to):
        raise ProtocolError(f"{op}: 'values_to' must be an absolute path")
    if len(plan["cases"]) != 1:
        raise ProtocolError(f"{op}: 'cases' must hold exactly one case")
    plan.update(exporter=exporter, opset_version=opset, dims=dims, values_to=values_to)
    return plan


def parse_module_request(req: dict, op: str) -> dict:
    """The checked fields of a module request, its tensors' headers read (ProtocolError for the first problem)."""
    factory, factory_path = _factory(req, op)
    plan = {"factory": factory, "factory_path": factory_path, "output_names": _output_names(req, op),
            "source_sha256": _expected_source(req, op)}
    dims = _dims(req, op) if op != "module_reference" else None
    output_dir = _output_dir(req, op)
    plan["inputs"] = _specs(req, op, dims)
    plan["cases"] = _cases(req, plan["inputs"], op, output_dir)
    plan["bind"], plan["imported"] = parse_bind(req, plan["inputs"], op)
    if op == "module_reference":
        return plan
    exporter, opset = req.get("exporter"), req.get("opset_version")
    if op == "module_intermediates":
        return _intermediates_plan(req, plan, dims, exporter, opset)
    if exporter not in EXPORTERS and not plan["imported"]:
        raise ProtocolError(f"{op}: unknown exporter {exporter!r} (torchscript or dynamo)")
    if not is_int(opset) or opset < 1:
        raise ProtocolError(f"{op}: 'opset_version' must be a positive integer")
    model_file = req.get("model_file", "model.onnx")
    if not isinstance(model_file, str) or not PLAIN_NAME.match(model_file) or model_file in (".", ".."):
        raise ProtocolError(f"{op}: 'model_file' must be a plain file name")
    export_sizes = {name: values[0] for name, values in dims.items()}
    plan["precision"] = parse_precision(req, op)
    plan.update(exporter=exporter, opset_version=opset, dims=dims, output_dir=output_dir,
                path=os.path.join(output_dir, model_file),
                example=_tensors(req.get("example"), plan["inputs"], "example", op, output_dir, export_sizes))
    return plan
