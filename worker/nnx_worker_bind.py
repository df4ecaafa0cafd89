"""The one rule that gives a module's inputs to its forward (doc/profile-files.md, "Inputs bound by name";
worker/PROTOCOL.md, "Module profiles", step 3b): a module profile's inputs by their names, an imported ONNX file's graph
inputs by its `bind` (each input's parameter name). Decided in the child from inspect.signature(forward),
once the module is built and before any reference, oracle or export runs.

- Each name goes to the forward parameter of that name: the leading run of bound positional parameters is
  passed by position (in the forward's order); a bound parameter after an unbound (defaulted) one, and every
  keyword-only one, is passed by keyword — to the reference, the oracle, the state proof and both exporters
  (torch.onnx.export's `kwargs`).
- No name is a parameter, the forward's required parameters are all positional and the inputs are at least
  as many as those and at most as many as its positional parameters: the names are labels and the inputs go
  by position (torchvision's forward(x) given `image`; check_module's `input_0..`); the parameters after
  them keep their defaults. Where a label reaches a parameter with a default, the record states the binding.
- A forward with *args or **kwargs, or one inspect cannot read, takes the inputs by position, as given.
- Otherwise refused (BindProblem): a name the forward lacks (naming the signature), a required parameter no
  input is bound to, a positional-only parameter that would follow an unbound one.
"""

from __future__ import annotations

import inspect

from nnx_worker_module_load import ModuleProblem

SIGNATURE_CHARS = 300


class BindProblem(ModuleProblem):
    """Inputs the forward cannot take by name: answered as `bind_error` (a usage error in the core)."""

    def __init__(self, text: str, unknown: list, parameters: list):
        super().__init__(text)
        self.detail = {"problem": text, "unknown": list(unknown), "parameters": list(parameters)}


class Binding:
    """Which input goes where: `positional` input indices in the forward's order, `keyword` (parameter,
    input index) pairs, and `parameters`, each input's parameter (None where the forward has *args/**kwargs)."""

    def __init__(self, positional: list, keyword: list, parameters: list, labels_to_defaults: bool = False):
        self.positional, self.keyword, self.parameters = positional, keyword, parameters
        self.labels_to_defaults = labels_to_defaults

    def plain(self) -> bool:
        """Every input by position in its own order: the call and the export are those of before binding."""
        return not self.keyword and self.positional == list(range(len(self.positional)))

    def stated(self) -> bool:
        """Whether the record states this binding: not plain, or a label given to a defaulted parameter."""
        return not self.plain() or self.labels_to_defaults

    def args(self, inputs: list) -> tuple:
        return tuple(inputs[k] for k in self.positional)

    def kwargs(self, inputs: list) -> dict:
        return {name: inputs[k] for name, k in self.keyword}

    def call(self, module, inputs: list):
        return module(*self.args(inputs), **self.kwargs(inputs))

    def graph_order(self) -> list:
        """The input indices in the order an exporter makes them graph inputs: positional, then keyword."""
        return list(self.positional) + [k for _, k in self.keyword]

    def describe(self, names: list) -> list:
        """The record's binding: [{input, parameter, passed}] in the inputs' order."""
        passed = {k: "position" for k in self.positional} | {k: "keyword" for _, k in self.keyword}
        return [{"input": n, "parameter": p, "passed": passed[k]} for k, (n, p) in enumerate(zip(names, self.parameters))]


def _by_position(count: int, parameters: list, labels_to_defaults: bool = False) -> Binding:
    return Binding(list(range(count)), [], parameters, labels_to_defaults)


def _signature_text(signature) -> str:
    text = f"forward{signature}"
    return text if len(text) <= SIGNATURE_CHARS else text[:SIGNATURE_CHARS] + "..."


def bind_inputs(module, names: list) -> Binding:
    """The binding of inputs named `names` to module.forward (the rule above); BindProblem when refused."""
    try:
        signature = inspect.signature(module.forward)
    except (TypeError, ValueError):
        return _by_position(len(names), [None] * len(names))
    params = list(signature.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return _by_position(len(names), [None] * len(names))
    known = [p.name for p in params]
    unknown = [n for n in names if n not in known]
    required = [p for p in params if p.default is p.empty]
    ordered = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(unknown) == len(names) and all(p in ordered for p in required) \
            and len(required) <= len(names) <= len(ordered):
        return _by_position(len(names), [p.name for p in ordered[:len(names)]], len(names) > len(required))
    text = _signature_text(signature)
    if unknown:
        raise BindProblem(f"the inputs {unknown} are no parameters of the module's {text}", unknown, known)
    positional, keyword, gap = [], [], None
    for p in params:
        if p.name not in names:
            if p.default is p.empty:
                raise BindProblem(f"the module's {text} needs {p.name!r}, which no input is named "
                                  f"(inputs: {list(names)})", [], known)
            gap = gap or p.name
        elif p.kind == p.KEYWORD_ONLY or (gap and p.kind == p.POSITIONAL_OR_KEYWORD):
            keyword.append((p.name, names.index(p.name)))
        elif gap:
            raise BindProblem(f"the input {p.name!r} is a positional-only parameter of the module's {text} "
                              f"after {gap!r}, which no input is named", [], known)
        else:
            positional.append(names.index(p.name))
    return Binding(positional, keyword, list(names))
