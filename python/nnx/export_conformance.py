"""Export conformance (``nnx.export-conformance/1``): what ONNX Runtime computes from an exported network.

A profile fixes everything a parity claim depends on; running it exports the model with PyTorch's real
exporter (in a worker process), checks the file with ``onnx.checker``, verifies every artifact's SHA-256,
loads it in ONNX Runtime and compares every logit with the native model. Each stage is recorded on its own::

    dependencies ─► export ─► check ─► load ─► parity

    from nnx.export_conformance import run_profile, execute, verify_artifacts

    record = run_profile("feedfwd-fp32-dynamo", "artifacts/")   # a JSON-ready dict
    assert record["level"] == "executed"
    verify_artifacts(record, "artifacts/")   # refuses a changed, missing or extra file
    again = execute(record, "artifacts/")    # re-runs load + parity; hashes checked first

One implementation: every function here calls the C++ core (``nnx._core``); records cross as JSON text
and come back as plain dicts and lists. Importing this module imports neither torch, onnx, onnxruntime nor
onnxscript; a profile run without them is a ``missing-dependency`` failure (exit 10), never a skip.

The exporter worker runs in this interpreter (``sys.executable``) with the worker shipped in the package
(``nnx/_worker/nnx_worker.py``); ``NNX_PYTHON`` and ``NNX_WORKER_SCRIPT`` override them. ONNX Runtime is
found in this order: the ``onnxruntime`` argument, ``NNX_ONNXRUNTIME_LIBRARY``, the bootstrap's copy baked
into a checkout build (a wheel bakes none), the ``libonnxruntime.so*`` of an installed ``onnxruntime``
wheel (``nnx[onnx-runtime]``; located without importing it), then the system loader's
``libonnxruntime.so.1``. A chosen library that fails is not replaced by a later one.

Errors: :class:`ConformanceError` (a ``ValueError``) for every refusal; its subclasses
:class:`UsageError` (an unknown tested name, a symlinked folder under ``force``), :class:`FolderInUse`
(a ``UsageError``: a profile folder holding files without ``force``), :class:`RuntimeUnavailable`
(``execute`` without a usable ONNX Runtime) and :class:`ArtifactIOError` (an unreadable artifact).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Optional, Union

from . import _core
from ._errors import ArtifactIOError, ConformanceError, FolderInUse, RuntimeUnavailable, UsageError

__all__ = [
    "EXIT_CODES",
    "FAILURES",
    "FAILURE_STAGES",
    "FORMAT",
    "LEVELS",
    "MODEL",
    "PROFILES",
    "STAGES",
    "ArtifactIOError",
    "ConformanceError",
    "FolderInUse",
    "Profile",
    "RuntimeUnavailable",
    "UsageError",
    "execute",
    "exit_code",
    "run_profile",
    "run_profiles",
    "save_report",
    "summary_lines",
    "validate_record",
    "verify_artifacts",
]

PathLike = Union[str, "os.PathLike[str]"]

# The vocabulary, from the core's tables (failure.h).
FORMAT: str = _core.format()
STAGES: tuple[str, ...] = tuple(_core.stages())
LEVELS: tuple[str, ...] = tuple(_core.levels())
FAILURES: tuple[str, ...] = tuple(name for name, _, _ in _core.failures())
#: Each failure class and the exit code that reports it (0 passed, 1 error and 2 usage error are no class).
EXIT_CODES: Mapping[str, int] = MappingProxyType({name: code for name, _, code in _core.failures()})
#: Each failure class and the stage it belongs to.
FAILURE_STAGES: Mapping[str, str] = MappingProxyType({name: stage for name, stage, _ in _core.failures()})
#: The model every tested profile exports (FeedFwdNN 4-8-2, the core's defaults); a copy is yours to change.
MODEL: dict[str, Any] = json.loads(_core.default_model())

_DEFAULTS: dict[str, Any] = json.loads(_core.default_profile())


@dataclass(frozen=True)
class Profile:
    """A conformance profile: the model, exporter options, runtime, provider, dtype, batches and tolerances.

    Defaults are the core's (record-format §3). The core checks a Profile when it is made: an invalid one,
    or one reusing a tested name with other settings, raises :class:`ConformanceError` naming every
    problem. ``model`` may be partial; it holds the full configuration afterwards.
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
        if isinstance(self.batches, list):
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
            "batches": list(self.batches) if isinstance(self.batches, (tuple, list)) else self.batches,
            "rtol": self.rtol,
            "atol": self.atol,
            "runtime": self.runtime,
            "provider": self.provider,
            "dtype": self.dtype,
            "model": copy.deepcopy(self.model),
        }

    @property
    def requires(self) -> tuple[str, ...]:
        """What this profile needs at run time (the core's list): torch, onnx, onnxruntime[, onnxscript]."""
        return tuple(_core.requirements(_dumps(self.to_json(), "the profile")))

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_json(), sort_keys=True))


# --- the boundary ---------------------------------------------------------------------------------------------


def _dumps(value: Any, what: str, strict: bool = True) -> str:
    """JSON text for the core. Strict: refused when it would not come back unchanged (NaN, a non-string
    key, a tuple, an object JSON cannot hold); the core then reads it with its strict parser."""
    try:
        text = json.dumps(value, allow_nan=not strict)
    except (TypeError, ValueError, RecursionError) as error:
        raise ConformanceError(f"{what} is not strict JSON: {error}") from None
    if strict and json.loads(text) != value:
        raise ConformanceError(f"{what} is not strict JSON: it does not survive a JSON round trip unchanged "
                               "(a non-string key or a tuple?)")
    return text


def _worker() -> tuple[str, str]:
    python = os.environ.get("NNX_PYTHON") or sys.executable or ""
    script = os.environ.get("NNX_WORKER_SCRIPT") or str(Path(__file__).resolve().parent / "_worker" / "nnx_worker.py")
    return python, script


def _onnxruntime_wheel_library() -> Optional[str]:
    """libonnxruntime.so* of an installed onnxruntime wheel, found without importing onnxruntime."""
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        capi = Path(location) / "capi"
        exact = capi / "libonnxruntime.so.1"
        if exact.is_file():
            return str(exact)
        found = sorted(capi.glob("libonnxruntime.so*"), key=lambda p: (len(p.name), p.name))
        if found:
            return str(found[-1])
    return None


def _onnxruntime_library(explicit: Optional[PathLike]) -> Optional[str]:
    """The library to name explicitly, or None to let the core search (env, bootstrap's copy, loader)."""
    if explicit is not None:
        return os.fspath(explicit)
    if os.environ.get("NNX_ONNXRUNTIME_LIBRARY"):
        return None
    bundled = _core.bundled_onnxruntime()
    if bundled and os.path.exists(bundled):
        return None
    return _onnxruntime_wheel_library()


def _profile_item(item: Any) -> Any:
    if isinstance(item, Profile):
        return item.to_json()
    if isinstance(item, Mapping):
        return dict(item)
    return item


#: The tested profiles by name, in run order (torchscript, then dynamo): the only executed-parity claims.
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {p["name"]: Profile(**p) for p in json.loads(_core.tested_profiles())}
)


# --- running --------------------------------------------------------------------------------------------------


def run_profile(
    profile: Union[str, Profile],
    root: PathLike,
    source_revision: Optional[str] = None,
    *,
    onnxruntime: Optional[PathLike] = None,
) -> dict[str, Any]:
    """Run one profile (a :class:`Profile` or a tested name) with its artifacts in ``root/<name>/`` and
    return its record. Refused before anything is written: an unknown name, an invalid Profile or one
    reusing a tested name (:class:`ConformanceError`), a folder ``root/<name>`` that exists as a file or
    holds files (:class:`FolderInUse`). A failing stage never raises: the record says what passed.
    ``source_revision`` is recorded with origin ``given`` ('' records null); else the git checkout this
    build belongs to, else ``unknown`` (an installed copy)."""
    python, script = _worker()
    text = _core.run_profile(
        _dumps(_profile_item(profile), "the profile"),
        os.fspath(root),
        source_revision,
        _onnxruntime_library(onnxruntime),
        python,
        script,
    )
    return json.loads(text)


def run_profiles(
    profiles: Optional[Iterable[Union[str, Profile]]],
    root: PathLike,
    source_revision: Optional[str] = None,
    force: bool = False,
    *,
    onnxruntime: Optional[PathLike] = None,
) -> list[dict[str, Any]]:
    """Run several profiles (tested names or Profiles; None: every tested profile) into ``root`` and return
    their records in run order. A profile given twice runs once. Every folder is checked before anything
    runs: without ``force`` a folder holding files is :class:`FolderInUse`; ``force`` clears only the
    chosen profiles' folders. An unknown tested name is a :class:`UsageError`."""
    if profiles is None:
        items: list[Any] = list(_core.tested_names([]))
    elif isinstance(profiles, (str, Profile)):
        items = [_profile_item(profiles)]
    else:
        items = [_profile_item(p) for p in profiles]
    for item in items:
        if isinstance(item, str):
            _core.tested_names([item])  # an unknown tested name is a usage error
    python, script = _worker()
    text = _core.run_profiles(
        _dumps(items, "the profiles"),
        os.fspath(root),
        source_revision,
        bool(force),
        _onnxruntime_library(onnxruntime),
        python,
        script,
    )
    return json.loads(text)


def execute(record: Mapping[str, Any], root: PathLike, *, onnxruntime: Optional[PathLike] = None) -> dict[str, Any]:
    """Run a saved record's load and parity stages again on its artifacts under ``root``, in C++ only (no
    Python exporters): the record is validated, its weights rebuilt and compared with ``weights_sha256``,
    every artifact verified before anything is loaded (a mismatch is a ``hash-mismatch`` record). Returns
    the new record. Refused: an invalid record or one whose check did not pass (:class:`ConformanceError`),
    no usable ONNX Runtime (:class:`RuntimeUnavailable`)."""
    text = _core.execute(_dumps(record, "the record"), os.fspath(root), _onnxruntime_library(onnxruntime))
    return json.loads(text)


# --- checking -------------------------------------------------------------------------------------------------


def verify_artifacts(record: Mapping[str, Any], root: PathLike) -> None:
    """Check every artifact of ``record`` under ``root/<artifacts.directory>`` byte for byte. Returns None
    when all verify; else raises :class:`ConformanceError` naming every problem (``<path>: missing``,
    ``<path>: hash mismatch``, ``<path>: not in the record``, ``<path>: a symlink``) in ``problems``."""
    problems = _core.verify_artifacts(_dumps(record, "the record"), os.fspath(root))
    if problems:
        where = os.path.join(os.fspath(root), str(record.get("artifacts", {}).get("directory", "")))
        raise ConformanceError(
            f"the artifacts in {where} do not verify ({len(problems)} problem{'s' if len(problems) != 1 else ''}):"
            + "".join(f"\n  - {p}" for p in problems),
            problems,
        )


def validate_record(record: Any) -> None:
    """Refuse a record that breaks any rule of ``nnx.export-conformance/1`` (record-format §6):
    :class:`ConformanceError` naming every problem (also in ``problems``)."""
    _core.validate_record(_dumps(record, "the record"))


# --- reporting ------------------------------------------------------------------------------------------------


def exit_code(records: Union[Iterable[Mapping[str, Any]], Mapping[str, Any]]) -> int:
    """0 when every record passed (and there is one); else the exit code of the first failing record's
    class (:data:`EXIT_CODES`); 1 for no records or an unknown failure. Takes records or a report."""
    return _core.exit_code(_dumps(_records_value(records), "the records", strict=False))


def summary_lines(records: Union[Iterable[Mapping[str, Any]], Mapping[str, Any]]) -> list[str]:
    """One line per record: ``<profile>: <status>[ (<failure>)]; level=...; n/m input cases passed``."""
    return list(_core.summary_lines(_dumps(_records_value(records), "the records", strict=False)))


def save_report(records: Union[Iterable[Mapping[str, Any]], Mapping[str, Any]], path: PathLike) -> None:
    """Write ``{format, status, profiles}`` (from records, or a report whose format and status agree with
    them) to ``path`` atomically, sorted keys, 2-space indent, newline at the end — after validating every
    record (:class:`ConformanceError` names the problems; nothing is written then)."""
    _core.save_report(_dumps(_records_value(records), "the report"), os.fspath(path))


def default_artifacts_root(report_path: PathLike) -> Path:
    """Where a report's artifacts go unless told otherwise: ``<report folder>/<report stem>-artifacts``
    (the core's rule, the same for the command line)."""
    return Path(_core.default_artifacts_root(os.fspath(report_path)))


def _records_value(records: Any) -> Any:
    if isinstance(records, Mapping):
        return dict(records)
    return list(records)
