"""The worker's `module_intermediates` op (worker/LOCALISATION.md, "module_intermediates"; doc/localisation.md):
PyTorch's side of a localisation. In a forked child, like module_reference: the module rebuilt from its
factory (its file's bytes checked against `source_sha256`), then, on the one case's inputs, every
intermediate value PyTorch computes, each written as a tensor file in `values_to` as soon as it is computed
and let go (never the whole graph's values at once), with its float64 counterpart from a float64 copy.

- dynamo: the module exported again with the record's exporter options (torch.onnx.export, dynamo=True,
  nothing written), and its exported program's graph run node by node (torch.fx.Interpreter): each
  call_function node's tensor is named by the FX node, the name the dynamo exporter gives the ONNX value it
  becomes; its module path and source line come from the node's own metadata.
- torchscript: forward hooks on every submodule: each submodule's tensor output named by its module path
  (the TorchScript exporter keeps no value names, only the module scopes of its nodes: the core aligns a
  path with the last value its scope writes), and the module's own outputs by their output names and
  positions. Localisation is then at module granularity.

The answer: {"values": [{name, dtype, shape, file, oracle_file, module, source, output_index}], "granularity": "node" |
"module", "oracle_missing": why the float64 values are missing or null, "skipped": [{name, why}],
"step_seconds": [[step, seconds]] (module and reference, then export for dynamo, values, oracle)}, besides
module_reference's fields (module, import_error, exception, output_names).
"""

from __future__ import annotations

import copy
import os
import re
import time

from nnx_worker_model import describe
from nnx_worker_module_load import ModuleProblem, torch_tensors
from nnx_worker_tensor_files import write_tensor_file
from nnx_worker_tensors import WireError

_SOURCE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _source(stack_trace) -> str | None:
    """The innermost `file:line` of an FX node's stack trace outside torch's own files (the user's code, or
    their model library's, that computed the value); torch's innermost when every frame is torch's."""
    import torch

    found = _SOURCE_LINE.findall(stack_trace or "")
    torch_folder = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    theirs = [f for f in found if not os.path.abspath(f[0]).startswith(torch_folder)] or found
    return f"{theirs[-1][0]}:{theirs[-1][1]}" if theirs else None


def _output_positions(graph) -> dict:
    """Each node whose value is one of the graph's outputs, with its position among them (an exporter names
    that ONNX value after the output, not the node)."""
    from torch.utils._pytree import tree_flatten

    positions = {}
    for node in graph.nodes:
        if node.op == "output":
            leaves, _ = tree_flatten(node.args)
            for k, leaf in enumerate(leaves):
                positions.setdefault(leaf, k)
    return positions


def _module_path(meta: dict) -> str | None:
    stack = meta.get("nn_module_stack") or {}
    if not stack:
        return None
    path = list(stack.values())[-1][0]
    return path if isinstance(path, str) else str(path)


class _Writer:
    """Writes each value's file as it is computed; a value the file format cannot hold is skipped, said why."""

    def __init__(self, folder: str, prefix: str):
        self.folder, self.prefix, self.entries, self.skipped = folder, prefix, {}, []

    def write(self, name: str, tensor, info: dict) -> None:
        import torch

        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided:
            kind = type(tensor).__name__ if not isinstance(tensor, torch.Tensor) else f"a {tensor.layout} tensor"
            self.skipped.append({"name": name, "why": f"its value is {kind}, not a dense tensor (its items, if "
                                                      f"any, are values of their own)"})
            return
        try:
            entry = write_tensor_file(self.folder, f"{self.prefix}/{len(self.entries)}.pb", name, tensor.detach())
        except WireError as exc:
            self.skipped.append({"name": name, "why": describe(exc)})
            return
        self.entries[name] = {**entry, **info}


def _flat_inputs(plan: dict, inputs: list) -> list:
    from torch.utils._pytree import tree_flatten

    binding = plan["binding"]
    flat, _ = tree_flatten((binding.args(inputs), binding.kwargs(inputs)))
    return flat


def _exported_graph(module, inputs: list, plan: dict, export_arguments):
    """The exported program's module, exported as the record's export was (dynamic dims, opset, names:
    `export_arguments` is the module export's own, nnx_worker_module.export_arguments)."""
    import torch

    args, options = export_arguments(inputs, plan, plan["output_names"] or [])
    program = torch.onnx.export(module, args, dynamo=True, **options)
    return program.exported_program.module()


def _run_fx(graph_module, flat: list, writer: _Writer, with_info: bool) -> None:
    import torch

    positions = _output_positions(graph_module.graph)

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            if n.op == "call_function":
                info = {"module": _module_path(n.meta), "source": _source(n.meta.get("stack_trace")),
                        "output_index": positions.get(n)} if with_info else {}
                writer.write(n.name, result, info)
            return result

    with torch.no_grad():
        Recorder(graph_module).run(*flat, enable_io_processing=False)


def _run_hooked(module, inputs: list, plan: dict, writer: _Writer) -> None:
    import torch

    def hook_for(path: str, sub):
        def hook(_, __, output):
            if isinstance(output, torch.Tensor):
                writer.write(path, output, {"module": path, "source": None, "class": type(sub).__name__})
        return hook

    handles = [sub.register_forward_hook(hook_for(path, sub)) for path, sub in module.named_modules() if path]
    try:
        module.eval()
        with torch.no_grad():
            out = plan["binding"].call(module, inputs)
    finally:
        for handle in handles:
            handle.remove()
    from torch.utils._pytree import tree_flatten

    names = plan["output_names"] or []
    for k, leaf in enumerate(tree_flatten(out)[0]):  # the root's outputs: the graph's, by position
        name = names[k] if k < len(names) else f"output_{k}"
        writer.write(name, leaf, {"module": None, "source": None, "output_index": k})


def _as_double(inputs: list) -> list:
    return [t.double() if t.is_floating_point() else t for t in inputs]


def intermediates(module, plan: dict, answer: dict, export_arguments) -> None:
    """Fills answer's values, granularity, oracle_missing and skipped (the module already built and bound;
    `export_arguments` gives a dynamo export the record's options)."""
    inputs = torch_tensors(plan["cases"][0]["tensors"])
    values, oracle = _Writer(plan["values_to"], "values"), _Writer(plan["values_to"], "oracle")
    steps, start = answer.setdefault("step_seconds", []), time.perf_counter()

    def done(step: str) -> None:
        nonlocal start
        steps.append([step, time.perf_counter() - start])
        start = time.perf_counter()

    try:
        if plan["exporter"] == "dynamo":
            answer["granularity"] = "node"
            graph_module = _exported_graph(module, inputs, plan, export_arguments)
            done("export")
            _run_fx(graph_module, _flat_inputs(plan, inputs), values, True)
            compute_oracle = lambda: _run_fx(copy.deepcopy(graph_module).double(),  # noqa: E731
                                             _flat_inputs(plan, _as_double(inputs)), oracle, False)
        else:
            answer["granularity"] = "module"
            _run_hooked(module, inputs, plan, values)
            compute_oracle = lambda: _run_hooked(copy.deepcopy(module).double(), _as_double(inputs),  # noqa: E731
                                                 plan, oracle)
    except Exception as exc:  # noqa: BLE001 - the module's or the exporter's failure: the core says why
        raise ModuleProblem(f"PyTorch's intermediate values could not be computed: {describe(exc)}") from None
    done("values")
    try:
        compute_oracle()
    except Exception as exc:  # noqa: BLE001 - a graph that does not run in float64: compared without the oracle
        answer["oracle_missing"] = describe(exc)
    done("oracle")
    entries = []
    for name, entry in values.entries.items():
        twin = oracle.entries.get(name)
        entries.append({**entry, "oracle_file": twin["file"] if twin and twin["shape"] == entry["shape"] else None})
    answer["values"], answer["skipped"] = entries, values.skipped
    if not os.path.isdir(plan["values_to"]):
        os.makedirs(plan["values_to"], exist_ok=True)
