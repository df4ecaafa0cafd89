"""ONNX-file profiles on the Python side: :class:`OnnxFileProfile`, the user's own ``model.onnx`` checked against
its data sets or its module (doc/record-format.md §11, doc/profile-files.md "Your own ONNX file"). Its JSON
form is exactly a profile file's object naming ``onnx``, read by the core with the profile file's reader."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from . import _core
from ._boundary import _dumps, _is_sequence, _plain
from ._profile_family import ProfileFamily, profile_kind

_KEYS = ("name", "onnx", "data", "module", "bind", "inputs", "dims", "opset", "rtol", "atol", "runtime", "provider")


@profile_kind
class OnnxFileProfile(ProfileFamily):
    """An ONNX-file profile: the file at ``onnx`` (its external data beside it) checked against the data sets in
    ``data`` (``test_data_set_N/input_j.pb`` and ``output_j.pb``, onnx_test_runner's layout; no torch needed)
    or against the module made by ``module`` (``FILE.py:FACTORY``, with ``bind`` mapping graph inputs to the
    forward's parameters where their names differ, and ``dims`` the values of each symbolic dim the drawn
    inputs take). ``inputs`` optionally lists the graph's input names (an integer input drawn against a module
    as ``{"name", "range"}``). ``None`` leaves a setting to the core: the file's own opset, the tested
    profiles' tolerances, ONNX Runtime's CPU provider. The exporter is ``onnx-file``.

    The core checks it when it is made (the file is read): an invalid one raises :class:`UsageError` whose
    ``problems`` are the profile file's lines without their ``profiles[i]: ``. :meth:`to_json` is the profile
    file's object.
    """

    name: str
    onnx: str
    data: Optional[str] = None
    module: Optional[str] = None
    bind: Optional[Mapping[str, str]] = None
    inputs: Optional[Sequence[Any]] = None
    dims: Optional[Mapping[str, Sequence[int]]] = None
    opset: Optional[int] = None
    rtol: Optional[float] = None
    atol: Optional[float] = None
    runtime: Optional[str] = None
    provider: Optional[str] = None
    _described_as = "the ONNX-file profile"  # not a field: no annotation

    def __post_init__(self) -> None:
        if _is_sequence(self.inputs):
            object.__setattr__(self, "inputs", tuple(self.inputs))
        if isinstance(self.dims, Mapping):
            object.__setattr__(self, "dims", {k: tuple(v) if _is_sequence(v) else v for k, v in self.dims.items()})
        _core.checked_profile(_dumps(self.to_json(), self._described_as))  # UsageError naming every problem

    def to_json(self) -> dict[str, Any]:
        """The profile file's object: the settings given (``opset`` spelled ``opset_version``), no others."""
        out: dict[str, Any] = {}
        for key in _KEYS:
            value = getattr(self, key)
            if value is not None:
                out["opset_version" if key == "opset" else key] = _plain(list(value) if key == "inputs" else value)
        return out

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "OnnxFileProfile":
        """An OnnxFileProfile from a profile file's object naming ``onnx`` (checked by the core, as when made):
        the opset spelled ``opset_version`` or ``opset``, the tolerances ``rtol``/``atol`` or ``tolerances``.
        A key this class has no field for is the core's problem to name, with its did-you-mean."""
        fields = {k: value[k] for k in _KEYS if k in value}
        for spelling in ("opset_version", "opset"):
            if spelling in value:
                fields["opset"] = value[spelling]
        tolerances = value.get("tolerances")
        if isinstance(tolerances, Mapping):
            fields.update({k: tolerances[k] for k in ("rtol", "atol") if k in tolerances})
        if set(value) - set(_KEYS) - {"opset_version", "tolerances", "exporter"} or value.get("exporter") not in (
                None, "onnx-file") or "tolerances" in value and not isinstance(tolerances, Mapping):
            _core.checked_profile(_dumps(dict(value), cls._described_as))  # the core's words for it
        return cls(**fields)
