"""The record format's vocabulary as nnx.export_conformance publishes it, read from the core's tables (failure.h):
the format id, stages, levels, failure classes with their exit codes and stages, and the default model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from . import _core

# The vocabulary, from the core's tables (failure.h).
FORMAT: str = _core.format()
STAGES: tuple[str, ...] = tuple(_core.stages())
LEVELS: tuple[str, ...] = tuple(_core.levels())
FAILURES: tuple[str, ...] = tuple(name for name, _, _ in _core.failures())
#: Each failure class of nnx.export-conformance/1 and the exit code that reports it (0 passed, 1 error and 2 usage
#: error are no class); a module record may also hold tool-error (19), the successor format's (doc/record-format.md §11).
EXIT_CODES: Mapping[str, int] = MappingProxyType({name: code for name, _, code in _core.failures()})
#: Each failure class and the stage it belongs to.
FAILURE_STAGES: Mapping[str, str] = MappingProxyType({name: stage for name, stage, _ in _core.failures()})
#: The model every tested profile exports (FeedFwdNN 4-8-2, the core's defaults); a copy is yours to change.
MODEL: dict[str, Any] = json.loads(_core.default_model())

_DEFAULTS: dict[str, Any] = json.loads(_core.default_profile())
