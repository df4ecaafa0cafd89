"""Profiles on the Python side: :class:`Profile` (checked by the core when made), the tested profiles and the
profile file reader; every rule is the core's (src/profile/)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Union

from . import _core
from ._boundary import PathLike, _dumps, _is_sequence, _path, _plain
from ._module_profiles import ModuleProfile
from ._onnx_file_profiles import OnnxFileProfile
from ._profile_family import ProfileFamily, profile_kind
from ._vocabulary import _DEFAULTS, MODEL


@profile_kind
class Profile(ProfileFamily):
    """A conformance profile: the model, exporter options, runtime, provider, dtype, batches and tolerances.

    Defaults are the core's (record-format §3). The core checks a Profile when it is made: an invalid one,
    or one reusing a tested name with other settings, raises :class:`ConformanceError` naming every
    problem. ``model`` may be partial; it holds the full configuration afterwards. ``batches`` and
    ``model["hidden_dims"]`` take any sequence (a list or a tuple); the JSON holds lists.
    """

    name: str
    exporter: str = _DEFAULTS["exporter"]
    opset_version: int = _DEFAULTS["opset_version"]
    export_batch: int = _DEFAULTS["export_batch"]
    dynamic_batch: bool = _DEFAULTS["dynamic_batch"]
    batches: tuple[int, ...] = tuple(_DEFAULTS["batches"])
    rtol: float = _DEFAULTS["rtol"]
    atol: float = _DEFAULTS["atol"]
    runtime: str = _DEFAULTS["runtime"]
    provider: str = _DEFAULTS["provider"]
    dtype: str = _DEFAULTS["dtype"]
    model: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(MODEL))

    def __post_init__(self) -> None:
        if _is_sequence(self.batches):  # a list, a tuple or any other sequence: kept as a tuple
            object.__setattr__(self, "batches", tuple(self.batches))
        if isinstance(self.model, Mapping):
            object.__setattr__(self, "model", copy.deepcopy(dict(self.model)))  # a private copy
        checked = json.loads(_core.checked_profile(_dumps(self.to_json(), "the profile")))
        object.__setattr__(self, "model", checked["model"])

    def to_json(self) -> dict[str, Any]:
        """The profile as the core reads it (JSON-ready)."""
        return {
            "name": self.name,
            "exporter": self.exporter,
            "opset_version": self.opset_version,
            "export_batch": self.export_batch,
            "dynamic_batch": self.dynamic_batch,
            "batches": list(self.batches) if _is_sequence(self.batches) else self.batches,
            "rtol": self.rtol,
            "atol": self.atol,
            "runtime": self.runtime,
            "provider": self.provider,
            "dtype": self.dtype,
            "model": _plain(self.model),
        }


def _profile_item(item: Any) -> Any:
    return item.to_json() if isinstance(item, ProfileFamily) else item


#: The tested profiles by name, in run order (torchscript, then dynamo): the only executed-parity claims.
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {p["name"]: Profile(**p) for p in json.loads(_core.tested_profiles())}
)


def load_profiles(path: PathLike) -> list[Union[Profile, ModuleProfile]]:
    """The profiles of a profile file (the format of ``run --profile-file``: a JSON list of objects with
    :class:`Profile`'s fields, ``name`` and ``exporter`` required, the others optional with their defaults;
    an object with a ``module`` is a :class:`ModuleProfile`, one naming ``onnx`` an :class:`OnnxFileProfile`), in file order, ready for :func:`run_profiles`. The core reads and checks the file: every bad entry is
    named by its index (``profiles[2].exporter: ...``) in one :class:`UsageError`."""
    return [_profile_of(entry) for entry in json.loads(_core.load_profiles(_path(path, "path")))]


def _profile_of(entry: Mapping[str, Any]) -> ProfileFamily:
    """The profile object of a profile file's entry, of the class its kind names (the core decides the kind)."""
    kind = _core.profile_kind(_dumps(entry, "the profile"))
    return _CLASS_OF_KIND[kind](entry)


#: The Python class of each profile kind the core names (src/python/bindings.h profile_kind).
_CLASS_OF_KIND = {"built-in": lambda entry: Profile(**entry), "module": ModuleProfile.from_json,
                  "onnx-file": OnnxFileProfile.from_json}
