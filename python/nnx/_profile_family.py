"""What every kind of profile shares on the Python side (:class:`Profile`, the built-in network's, and
:class:`ModuleProfile`, a module's): both are frozen dataclasses whose JSON form the core reads
(``to_json``), so what they need at run time and their hash are answered once, here, from that form."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import _core
from ._boundary import _dumps


class ProfileFamily:
    """The base of every kind of profile: ``requires`` and ``__hash__`` over :meth:`to_json`."""

    #: How a message names a profile of this kind (``_dumps``'s refusal of a value JSON cannot hold).
    _described_as = "the profile"

    def to_json(self) -> dict[str, Any]:  # each kind's own JSON form
        raise NotImplementedError

    def _core_json(self) -> dict[str, Any]:
        """The form the core's checks read: to_json, unless a kind holds what no JSON can (a module object)."""
        return self.to_json()

    @property
    def requires(self) -> tuple[str, ...]:
        """What this profile needs at run time (the core's list): torch, onnx, onnxruntime[, onnxscript]."""
        return tuple(_core.requirements(_dumps(self._core_json(), self._described_as)))

    def __hash__(self) -> int:
        return hash(json.dumps(self._core_json(), sort_keys=True))


def profile_kind(cls: type) -> type:
    """``@dataclass(frozen=True)`` for a kind of profile, keeping :class:`ProfileFamily`'s hash: a frozen
    dataclass would otherwise hash its fields, which a mapping field (a model, dims) cannot give."""
    kind = dataclass(frozen=True)(cls)
    kind.__hash__ = ProfileFamily.__hash__
    return kind
