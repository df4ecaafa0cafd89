"""Module profiles on the Python side: :class:`ModuleProfile`, the user's own PyTorch module named by its
factory (doc/record-format.md §10). Its JSON form is exactly a profile file's module object, and the core
reads it with the profile file's reader (src/profile/profile_module.h): the same rules, the same problems."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

import dataclasses
import os

from . import _core
from ._boundary import PathLike, _dumps, _is_sequence, _plain
from ._errors import UsageError
from ._module_objects import PLACEHOLDER_FACTORY, holds_object, refuse_bad_object
from ._profile_family import ProfileFamily, profile_kind

#: A module profile's defaults (the core's: profile_module.h, module_spec.h).
MODULE_OPSET = 18
MODULE_RTOL = 1e-4
MODULE_ATOL = 1e-5
_RUNTIME = "onnxruntime"
_PROVIDER = "CPUExecutionProvider"


def _input_spec(spec: Any) -> Any:
    """An input spec as the profile file holds it: shape and range as lists (tuples accepted), no null range."""
    if not isinstance(spec, Mapping):
        return spec  # the core names the problem
    out = dict(spec)
    if "range" in out and out["range"] is None:
        del out["range"]
    for key in ("shape", "range", "hides"):
        if _is_sequence(out.get(key)):
            out[key] = list(out[key])
    return out


@profile_kind
class ModuleProfile(ProfileFamily):
    """A module profile: the user's own ``nn.Module``, made by ``module`` (``FILE.py:FACTORY``, a path relative
    to the current folder or absolute, or ``package.module:FACTORY``; the factory takes no argument), with its
    ``inputs`` (each ``{"name", "shape", "dtype"[, "range"]}``: a shape of fixed sizes and symbolic names,
    a dtype of float32, float64, int64, int32, and for an integer input its ``[low, high)`` range) and the
    values of each symbolic dim in ``dims`` (``{"batch": [2, 1, 3]}``: the first is the export's; a dim
    may be left out when ``data`` gives every input that uses it: its sizes are then the data sets', and no case
    of the dims is drawn).
    ``outputs`` names the outputs (None: the exporter's names). ``module`` may also be an ``nn.Module`` or a
    callable of no argument returning one: when the profile runs it is saved under the run's root as
    :func:`check_module` saves it, and that factory is the profile's (python/nnx/_module_objects.py); such a
    profile has no profile-file form (:meth:`to_json` refuses it) until then. ``data`` names a folder of
    given inputs, ``test_data_set_<N>/input_<j>.pb`` (each TensorProto named after the input it gives; the
    others drawn, an integer one from its ``range``): one more case per data set (doc/profile-files.md, "Inputs you give").

    The core checks it when it is made, with the reader of ``run --profile-file``: an invalid one raises
    :class:`UsageError` whose ``problems`` are the profile file's lines without their ``profiles[i]: ``
    (e.g. ``module: the file m.py does not exist (...)``). :meth:`to_json` is the profile file's object.
    """

    name: str
    exporter: str
    module: Any
    inputs: Sequence[Mapping[str, Any]]
    dims: Mapping[str, Sequence[int]] = dataclasses.field(default_factory=dict)
    outputs: Optional[Sequence[str]] = None
    opset: int = MODULE_OPSET
    rtol: float = MODULE_RTOL
    atol: float = MODULE_ATOL
    runtime: str = _RUNTIME
    provider: str = _PROVIDER
    data: Optional[PathLike] = None
    precision: str = "float32"  # float32, float16-torch, float16-graph or bfloat16 (doc/profile-files.md, "Precision")
    _described_as = "the module profile"  # not a field: no annotation

    def __post_init__(self) -> None:
        if _is_sequence(self.inputs):
            object.__setattr__(self, "inputs", tuple(_input_spec(s) for s in self.inputs))
        if isinstance(self.dims, Mapping):
            object.__setattr__(self, "dims", {k: tuple(v) if _is_sequence(v) else v for k, v in self.dims.items()})
        if _is_sequence(self.outputs):
            object.__setattr__(self, "outputs", tuple(self.outputs))
        refuse_bad_object(self.module)  # an object that cannot stand for a factory: named before the core's check
        _core.checked_profile(_dumps(self._core_json(), "the module profile"))  # UsageError naming every problem

    def with_module(self, factory: str) -> "ModuleProfile":
        """This profile with ``module`` set to ``factory`` (checked again)."""
        return dataclasses.replace(self, module=factory)

    def _core_json(self) -> dict[str, Any]:
        """to_json, a module object standing as a placeholder factory (what the core's checks read)."""
        return self._json(PLACEHOLDER_FACTORY if holds_object(self.module) else self.module)

    def to_json(self) -> dict[str, Any]:
        """The profile file's object: name, exporter, module, inputs, dims[, outputs], opset_version, rtol,
        atol (runtime and provider too when they are not the defaults). A profile holding a module object has
        none (:class:`UsageError`): run it, which saves the object as check_module does."""
        if holds_object(self.module):
            message = (f"the module profile \"{self.name}\" holds a module object, which no profile file can: run it "
                       f"(run_profile saves the object as check_module does) or save it with check_module first")
            raise UsageError(message, [message])
        return self._json(self.module)

    def _json(self, module: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "exporter": self.exporter,
            "module": module,
            "inputs": _plain(list(self.inputs)) if _is_sequence(self.inputs) else _plain(self.inputs),
            "dims": _plain(self.dims),
        }
        if self.outputs is not None:
            out["outputs"] = _plain(list(self.outputs)) if _is_sequence(self.outputs) else _plain(self.outputs)
        if self.data is not None:
            out["data"] = os.fspath(self.data) if isinstance(self.data, (str, os.PathLike)) else _plain(self.data)
        out["opset_version"] = self.opset  # the one spelling of every kind (src/profile/profile_spelling.h)
        out["rtol"] = self.rtol
        out["atol"] = self.atol
        if self.runtime != _RUNTIME:
            out["runtime"] = self.runtime
        if self.provider != _PROVIDER:
            out["provider"] = self.provider
        if self.precision != "float32":  # the default is left out: a float32 profile's file is as before
            out["precision"] = self.precision
        return out

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "ModuleProfile":
        """A ModuleProfile from a profile file's module object (checked by the core, as when made): the opset
        and tolerances spelled ``opset_version``, ``rtol``, ``atol`` or, as their alias, ``opset`` and
        ``tolerances {rtol, atol}``."""
        known = {"name", "exporter", "module", "inputs", "dims", "outputs", "opset_version", "opset", "rtol", "atol",
                 "tolerances", "runtime", "provider", "data", "precision"}
        tolerances = value.get("tolerances", {})
        both = ("opset_version" in value and "opset" in value) or \
            ("tolerances" in value and ("rtol" in value or "atol" in value))
        odd = not isinstance(tolerances, Mapping) or set(tolerances) - {"rtol", "atol"}
        if set(value) - known or both or odd:  # the core's words for it, through the profile file's reader
            _core.checked_profile(_dumps(dict(value), "the module profile"))
        fields = {k: value[k] for k in ("name", "exporter", "module", "inputs", "dims", "outputs", "runtime",
                                        "provider", "rtol", "atol", "data", "precision") if k in value}
        for spelling in ("opset_version", "opset"):
            if spelling in value:
                fields["opset"] = value[spelling]
        for key in ("rtol", "atol"):
            if key in tolerances:
                fields[key] = tolerances[key]
        return cls(**fields)

