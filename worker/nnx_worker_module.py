"""The worker's module profile ops, `module_export` and `module_reference` (worker/PROTOCOL.md, "Module
profiles"): the user's own nn.Module, named by a factory, exported and referenced in a forked child
(worker/nnx_worker_fork.py) so that its imports and globals never meet another profile's.

The request is checked in the worker (worker/nnx_worker_module_request.py); everything that touches the
module runs in the child, one case's tensors at a time: worker/nnx_worker_module_load.py (factory, identity,
reference, oracle), the state proof and the export here, worker/nnx_worker_weights.py (the state dict against
the graph's initializers).
"""

from __future__ import annotations

import os
import sys
import time

from nnx_worker_fork import ChildDied, run_in_child
from nnx_worker_bind import BindProblem, bind_inputs
from nnx_worker_imported import imported_work
from nnx_worker_model import describe
from nnx_worker_module_load import (ModuleProblem, SourceChanged, StoreProblem, build_module, oracle,
                                    output_names, references, named_outputs, torch_tensors)
from nnx_worker_module_request import parse_module_request
from nnx_worker_precision import convert_graph, convert_module, weights_module
from nnx_worker_warm import WARM_PARENTS, warm_imports
from nnx_worker_watch import changed_entries, changed_parts, export_in_eval, STATE_PARTS, watch_export

EXCEPTION_CHARS = 65536  # an exporter's whole message and advice, cut only past 64 KiB (doc/record-format.md §10)


# --------------------------------------------------------------------------------------------
# the export (in the child)


def pin_eval_sum_grads_then_root_and_odd_modules_train(module, example, binding):
    """A module's state recipe (worker/PROTOCOL.md, "The two state recipes"). Gradients from one eval-mode
    forward of the example (the sum of its floating outputs that require
    grad; none when no output does), so no buffer changes; then a mixed mode: in named_modules() order
    the root and every odd-numbered module in train mode, the others in eval (each flag set on its own).
    Returns None; or, when backward cannot run through the module (an op without a derivative: floor
    division), the gradients left unset and why — the proof is then of parameters, buffers and modes alone,
    the tool's own step never blamed on the exporter. A forward that raises is the module's problem."""
    import torch
    from torch.utils._pytree import tree_flatten

    torch.manual_seed(0)
    module.eval()
    module.zero_grad(set_to_none=True)
    try:
        leaves, _ = tree_flatten(binding.call(module, example))
    except Exception as exc:  # noqa: BLE001
        raise ModuleProblem(f"the module's forward raised {describe(exc)} in the gradient pass") from None
    terms = [t.sum() for t in leaves if isinstance(t, torch.Tensor) and t.is_floating_point() and t.requires_grad]
    no_backward = None
    if terms:
        try:
            torch.stack(terms).sum().backward()
        except RuntimeError as exc:
            module.zero_grad(set_to_none=True)
            no_backward = describe(exc)
    for index, (_, sub) in enumerate(module.named_modules()):
        sub.training = index == 0 or index % 2 == 1
    return no_backward


def export_arguments(example, plan: dict, names: list) -> tuple:
    """(args, options) of torch.onnx.export for a module export, the inputs and dims given as the binding says
    (nnx_worker_bind.py: a plain one exactly as before binding by name; otherwise the keyword inputs as
    `kwargs`, the graph's inputs named in the exporters' order, positional then keyword); module_intermediates
    exports again with the same (nnx_worker_intermediates.py)."""
    import torch

    specs, binding, order = plan["inputs"], plan["binding"], plan["binding"].graph_order()
    options = {"opset_version": plan["opset_version"], "input_names": [specs[k]["name"] for k in order],
               "output_names": list(names)}
    if binding.keyword:
        options["kwargs"] = binding.kwargs(example)
    if plan["exporter"] == "dynamo":
        dims = {name: torch.export.Dim(name) for name in plan["dims"]}
        per_input = [{axis: dims[d] for axis, d in enumerate(s["shape"]) if isinstance(d, str)} or None
                     for s in specs]
        options["dynamic_shapes"] = tuple(per_input) if binding.plain() else \
            {binding.parameters[k]: per_input[k] for k in order}
    else:
        axes = {s["name"]: {axis: d for axis, d in enumerate(s["shape"]) if isinstance(d, str)} for s in specs}
        options["dynamic_axes"] = {k: v for k, v in axes.items() if v} or None
    return binding.args(example), options


def call_module_exporter(module, example, path: str, plan: dict, names: list) -> None:
    """The raw exporter call of a module export: torch.onnx.export with the profile's inputs and dims."""
    import torch

    args, options = export_arguments(example, plan, names)
    torch.onnx.export(module, args, path, dynamo=plan["exporter"] == "dynamo", **options)


def _cut(text):
    if text is None or len(text) <= EXCEPTION_CHARS:
        return text
    return f"{text[:EXCEPTION_CHARS]}... ({len(text) - EXCEPTION_CHARS} more characters)"


def graph_facts(path: str, plan: dict) -> dict:
    """dims_in_graph and graph (the signature) of the exported file, read without its external data."""
    import onnx

    model = onnx.load(path, load_external_data=False)

    def signature(value):
        kind = value.type.tensor_type
        shape = [d.dim_param if d.HasField("dim_param") else d.dim_value if d.HasField("dim_value") else None
                 for d in kind.shape.dim] if kind.HasField("shape") else None
        return {"name": value.name, "dtype": onnx.TensorProto.DataType.Name(kind.elem_type).lower(), "shape": shape}

    graph = {"inputs": [signature(v) for v in model.graph.input], "outputs": [signature(v) for v in model.graph.output]}
    by_name = {v["name"]: v for v in graph["inputs"]}
    dims = {}
    for name in plan["dims"]:
        axes = [(spec["name"], axis) for spec in plan["inputs"] for axis, d in enumerate(spec["shape"]) if d == name]
        found = [by_name[i]["shape"][a] if i in by_name and by_name[i]["shape"] and a < len(by_name[i]["shape"])
                 else None for i, a in axes]
        dims[name] = "dynamic" if found and all(isinstance(f, str) and f for f in found) else "static"
    return {"dims_in_graph": dims, "graph": graph}


def _export_answer() -> dict:
    return {"ok": True, "import_error": None, "exception": None, "log": "", "warnings": [], "module": None,
            "model_state": None, "changed": [], "changed_entries": [], "wrote_model": False, "output_names": [],
            "dims_in_graph": None, "graph": None, "references": [], "oracle": None, "oracle_missing": None,
            "weights": None, "step_seconds": []}


class _Steps:
    """The wall time of each step of the child's work, in order, into answer["step_seconds"] as [step,
    seconds] pairs (run --timings)."""

    def __init__(self, answer: dict):
        self.seconds, self.start = answer.setdefault("step_seconds", []), time.perf_counter()

    def done(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds.append([step, now - self.start])
        self.start = now


def _reference_steps(plan: dict, answer: dict):
    """Steps 1-4 (import, call, identity, reference): the module, with `answer` filled in."""
    steps, modules = _Steps(answer), len(sys.modules)
    module, answer["module"] = build_module(plan["factory"], plan["factory_path"], plan.get("source_sha256"))
    names = plan["bind"] or [spec["name"] for spec in plan["inputs"]]  # an imported file's: its `bind`
    answer["modules_imported"] = len(sys.modules) - modules  # by the factory's file and call: a warm parent's are not
    plan["binding"] = binding = bind_inputs(module, names)  # before anything runs the forward
    if binding.stated():
        answer["binding"] = binding.describe([spec["name"] for spec in plan["inputs"]])
    steps.done("module")
    if plan["cases"]:
        answer["output_names"], answer["references"] = references(module, plan["cases"], plan["output_names"],
                                                                  binding)
    else:
        sample = torch_tensors(plan.get("example") or [])
        answer["output_names"] = (named_outputs(module, sample, plan["output_names"], binding)[0] if sample
                                  else output_names(plan["output_names"], len(plan["output_names"] or [])))
    steps.done("reference")
    return module


def _export_work(plan: dict) -> dict:
    import nnx_worker_weights

    answer = _export_answer()
    try:
        module = _reference_steps(plan, answer)
        steps = _Steps(answer)
        if plan["imported"]:  # the user's own file, already in the profile folder: nothing is exported
            return imported_work(plan, answer, module, steps, oracle)
        answer["oracle"], answer["oracle_missing"] = oracle(module, plan["cases"], answer["output_names"],
                                                            plan["binding"])
        steps.done("oracle")
        example, path, names = torch_tensors(plan["example"]), plan["path"], answer["output_names"]
        example = convert_module(module, example, plan["precision"])  # after the float32 truth and the oracle
        no_backward = pin_eval_sum_grads_then_root_and_odd_modules_train(module, example, plan["binding"])
        if no_backward is not None:
            answer["state_proof"] = {"gradients": False, "why": _cut(no_backward)}
        steps.done("gradients")
        os.makedirs(plan["output_dir"], exist_ok=True)
        outcome = watch_export(module, path, lambda: export_in_eval(
            module, lambda: call_module_exporter(module, example, path, plan, names)), whole_warnings=True)
        steps.done("exporter")
    except BindProblem as exc:
        answer["bind_error"] = exc.detail
        return answer
    except StoreProblem as exc:
        answer["store_error"] = str(exc)
        return answer
    except ModuleProblem as exc:
        answer["import_error" if exc.importing else "exception"] = str(exc)
        return answer
    changed = changed_parts(outcome["before"], outcome["after"])
    answer.update(exception=_cut(outcome["exception"]), log=outcome["log"], warnings=outcome["warnings"],
                  changed=changed, changed_entries=changed_entries(outcome["before"], outcome["after"]),
                  model_state={part: part not in changed for part in STATE_PARTS},
                  wrote_model=outcome["wrote_model"])
    if outcome["exception"] is None and outcome["wrote_model"]:
        if plan["precision"] is not None:
            try:
                answer["precision"] = convert_graph(path, plan["precision"], plan["inputs"])
            except Exception as exc:  # noqa: BLE001 - the converter's failure is the export's
                answer["exception"] = _cut(f"converting the graph to {plan['precision']} failed: {describe(exc)}")
                return answer
            steps.done("precision")
        answer.update(graph_facts(path, plan))
        try:
            answer["weights"] = nnx_worker_weights.classify(weights_module(module, plan["precision"]), path)
        except Exception as exc:  # noqa: BLE001 - a graph the classifier cannot read: say so, keep the rest
            answer["warnings"] = sorted(set(answer["warnings"]) | {f"nnx: weights not classified: {describe(exc)}"})
        steps.done("weights")
    return answer


def _rebuild_work(plan: dict, answer: dict, then=None) -> dict:
    """module_reference's and module_intermediates' child: the module rebuilt (steps 1-4), then `then(module)`;
    a factory file of other bytes, or the module's own problem, said in `answer`."""
    try:
        module = _reference_steps(plan, answer)
        if then is not None:
            then(module)
    except SourceChanged as exc:
        answer["module"] = {"class": None, "source_sha256": exc.digest, "state_sha256": None}
        answer["exception"] = str(exc)
    except ModuleProblem as exc:
        answer["import_error" if exc.importing else "exception"] = str(exc)
    return answer


def _reference_work(plan: dict) -> dict:
    return _rebuild_work(plan, _reference_answer())


def _intermediates_answer() -> dict:
    return {"ok": True, "import_error": None, "exception": None, "module": None, "output_names": [],
            "values": [], "granularity": None, "oracle_missing": None, "skipped": []}


def _intermediates_work(plan: dict) -> dict:
    from nnx_worker_intermediates import intermediates

    answer = _intermediates_answer()

    def values(module) -> None:
        answer.pop("references", None)  # the case's outputs are not asked for: its values are files
        plan["output_names"] = answer["output_names"]
        intermediates(module, plan, answer, export_arguments)

    return _rebuild_work(plan, answer, values)


def _in_child(work, plan: dict, answer: dict) -> dict:
    try:
        return run_in_child(lambda: work(plan))
    except ChildDied as died:
        answer.update(exception=f"the module's process died: {died}")
        if "log" in answer:
            answer["log"] = died.log
        return answer


def _reference_answer() -> dict:
    return {"ok": True, "import_error": None, "exception": None, "module": None, "references": [],
            "output_names": []}


def _export_here(plan: dict) -> dict:
    return _in_child(_export_work, plan, _export_answer())


def _reference_here(plan: dict) -> dict:
    return _in_child(_reference_work, plan, _reference_answer())


def _intermediates_here(plan: dict) -> dict:
    return _in_child(_intermediates_work, plan, _intermediates_answer())


# Each module op: run in a forked child of this process (the worker's, or a warm parent's), and its empty answer.
_HERE = {"module_export": (_export_here, _export_answer), "module_reference": (_reference_here, _reference_answer),
         "module_intermediates": (_intermediates_here, _intermediates_answer)}


def _served_here(req: dict) -> dict:
    """A module request a warm parent serves (worker/nnx_worker_warm.py): in a child of the warm parent."""
    return _HERE[req["op"]][0](parse_module_request(req, req["op"]))


WARM_PARENT_OPS = {op: _served_here for op in _HERE}


def _module_op(req: dict, op: str) -> dict:
    warm_imports(op, req.get("exporter"))
    plan = parse_module_request(req, op)
    here, empty = _HERE[op]
    return WARM_PARENTS.answer(req, plan, lambda: here(plan), empty(), WARM_PARENT_OPS)


def op_module_export(req: dict) -> dict:
    return _module_op(req, "module_export")


def op_module_reference(req: dict) -> dict:
    return _module_op(req, "module_reference")


def op_module_intermediates(req: dict) -> dict:
    return _module_op(req, "module_intermediates")
