"""Export conformance (``nnx.export-conformance/1``): what ONNX Runtime computes from an exported network.

A profile fixes everything a parity claim depends on; running it exports the model with PyTorch's real
exporter (in a worker process), checks the file with ``onnx.checker``, verifies every artifact's SHA-256,
loads it in ONNX Runtime and compares every logit with the native model. Each stage is recorded on its own::

    dependencies ─► export ─► check ─► load ─► parity

    from nnx.export_conformance import run_profile, run_profiles, execute, verify_artifacts, save_report, exit_code

    record = run_profile("feedfwd-fp32-dynamo", "artifacts/")   # a JSON-ready dict
    assert record["level"] == "executed"
    verify_artifacts(record, "artifacts/")   # refuses a changed, missing or extra file
    again = execute(record, "artifacts/")    # re-runs load + parity; hashes checked first
    report = run_profiles("all/", force=True)   # {format, status, profiles}: both tested profiles
    save_report(report, "conformance.json"); print(exit_code(report))

The signatures are those of the published original (``thekaveh-nnx`` 0.4.1), so code written for it runs
unchanged; ``force`` and ``onnxruntime`` are keyword-only additions.

One implementation: every function here calls the C++ core (``nnx._core``); records cross as JSON text
and come back as plain dicts and lists (``validate_record``, ``validate_records``, ``verify_artifacts``
and ``verify_artifacts_many`` hand the core the Python objects themselves, converted in C++ with the same
strictness as the text; src/python/python_json.h). Importing this module imports neither torch, onnx, onnxruntime nor
onnxscript; a profile run without them is a ``missing-dependency`` failure (exit 10), never a skip.

The exporter worker runs in this interpreter (``sys.executable``) with the worker shipped in the package
(``nnx/_worker/nnx_worker.py``); ``NNX_PYTHON`` and ``NNX_WORKER_SCRIPT`` override them. ONNX Runtime is
found in this order: the ``onnxruntime`` argument, ``NNX_ONNXRUNTIME_LIBRARY``, the bootstrap's copy baked
into a checkout build (a wheel bakes none), the ``libonnxruntime.so*`` of an installed ``onnxruntime``
wheel (``nnx-conformance[onnx-runtime]``; located without importing it), then the system loader's
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
from collections.abc import Iterable, Mapping, Sequence
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
    "build_model",
    "execute",
    "exit_code",
    "run_profile",
    "run_profiles",
    "runtime_matrix",
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

    @property
    def requires(self) -> tuple[str, ...]:
        """What this profile needs at run time (the core's list): torch, onnx, onnxruntime[, onnxscript]."""
        return tuple(_core.requirements(_dumps(self.to_json(), "the profile")))

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_json(), sort_keys=True))


# --- the boundary ---------------------------------------------------------------------------------------------


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _plain(value: Any) -> Any:
    """``value`` with every sequence (a tuple too) as a list and every mapping as a dict; anything else as
    it is, for the strict check to judge (a non-string key, NaN, an object JSON cannot hold)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if _is_sequence(value):
        return [_plain(item) for item in value]
    return value


def _dumps(value: Any, what: str, strict: bool = True) -> str:
    """JSON text for the core. Sequences (tuples too) cross as lists and mappings as objects; strict: refused
    when it would not come back unchanged (NaN, a non-string key, an object JSON cannot hold); the core
    then reads it with its strict parser."""
    try:
        value = _plain(value)
        text = json.dumps(value, allow_nan=not strict)
    except (TypeError, ValueError, RecursionError) as error:
        raise ConformanceError(f"{what} is not strict JSON: {error}") from None
    if strict and json.loads(text) != value:
        raise ConformanceError(f"{what} is not strict JSON: it does not survive a JSON round trip unchanged "
                               "(a non-string key?)")
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
    return item.to_json() if isinstance(item, Profile) else item


#: The tested profiles by name, in run order (torchscript, then dynamo): the only executed-parity claims.
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {p["name"]: Profile(**p) for p in json.loads(_core.tested_profiles())}
)


# --- running --------------------------------------------------------------------------------------------------


def run_profile(
    profile_or_name: Union[str, Profile],
    directory: PathLike,
    *,
    source_revision: Optional[str] = None,
    onnxruntime: Optional[PathLike] = None,
) -> dict[str, Any]:
    """Run one profile (a :class:`Profile` or a tested name) with its artifacts in ``directory/<name>/`` and
    return its record. Refused before anything is written: an unknown name, an invalid Profile or one
    reusing a tested name (:class:`ConformanceError`), a folder ``directory/<name>`` that exists as a file or
    holds files (:class:`FolderInUse`). A failing stage never raises: the record says what passed.
    ``source_revision`` is recorded with origin ``given`` ('' records null); else the git checkout this
    build belongs to, else ``unknown`` (an installed copy)."""
    python, script = _worker()
    text = _core.run_profile(
        _dumps(_profile_item(profile_or_name), "the profile"),
        _directory(directory, "run_profile(profile_or_name, directory, *, source_revision=None)"),
        source_revision,
        _onnxruntime_library(onnxruntime),
        python,
        script,
    )
    return json.loads(text)


def run_profiles(
    directory: PathLike,
    names: Optional[Iterable[Union[str, Profile]]] = None,
    *,
    source_revision: Optional[str] = None,
    force: bool = False,
    onnxruntime: Optional[PathLike] = None,
    jobs: Optional[int] = None,
) -> dict[str, Any]:
    """Run several profiles into ``directory`` and return the report ``{format, status, profiles}`` (the
    core's report: ``status`` is ``passed`` iff there is a record and every record passed; ``profiles`` the
    records in run order). ``names``: tested names (a :class:`Profile` too); None means every tested
    profile, torchscript first; a name given twice runs once. Everything is checked before anything is
    written: an unknown tested name is a :class:`UsageError`, an invalid Profile a :class:`ConformanceError`,
    and without ``force`` a profile folder holding files is :class:`FolderInUse`; ``force`` clears only the
    chosen profiles' folders. ``names`` may be :func:`load_profiles`'s list. ``jobs``: profiles exported at
    once, each by its own worker (None: auto, one worker plus those the run's exports pay for, at most one per core; below 1 a :class:`UsageError`); the records
    come back in run order whatever it is."""
    root = _directory(directory, "run_profiles(directory, names=None, *, source_revision=None, force=False)")
    if names is None:
        items: Any = None
    elif isinstance(names, (str, Profile, Mapping)):
        items = [_profile_item(names)]
    else:
        items = [_profile_item(item) for item in names]
    python, script = _worker()
    text = _core.run_profiles(
        _dumps(items, "the profiles"),
        root,
        source_revision,
        bool(force),
        _onnxruntime_library(onnxruntime),
        python,
        script,
        _jobs(jobs),
    )
    return json.loads(text)


def _jobs(jobs: Any) -> Optional[int]:
    if jobs is None:
        return None
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise UsageError(f"jobs must be a whole number of profiles at once or None, not {jobs!r}")
    if jobs < 1:
        raise UsageError(f"jobs must be at least 1, not {jobs}")
    return jobs


def load_profiles(path: PathLike) -> list[Profile]:
    """The profiles of a profile file (the format of ``run --profile-file``: a JSON list of objects with
    :class:`Profile`'s fields, ``name`` and ``exporter`` required, the others optional with their defaults),
    in file order, ready for :func:`run_profiles`. The core reads and checks the file: every bad entry is
    named by its index (``profiles[2].exporter: ...``) in one :class:`UsageError`."""
    return [Profile(**entry) for entry in json.loads(_core.load_profiles(os.fspath(path)))]


def execute(
    record: Mapping[str, Any],
    directory: PathLike,
    *,
    onnxruntime: Optional[PathLike] = None,
    reference: str = "torch",
) -> dict[str, Any]:
    """Run a saved record's load and parity stages again on its artifacts under ``directory``: the record is
    validated, its weights rebuilt and compared with ``weights_sha256``, every artifact verified before
    anything is loaded (a mismatch is a ``hash-mismatch`` record). Parity compares ONNX Runtime with
    ``reference``: ``"torch"`` (default, as the original: the PyTorch network in eval mode, computed in the
    exporter worker) or ``"native"`` (the core's C++ forward; no PyTorch needed). Returns the new record,
    whose versions describe the environment that produced it. Refused: an invalid record or one whose check
    did not pass (:class:`ConformanceError`), no usable ONNX Runtime or, for the torch reference, no usable
    PyTorch (:class:`RuntimeUnavailable`), an unknown reference (:class:`UsageError`)."""
    python, script = _worker()
    text = _core.execute(_dumps(record, "the record"), os.fspath(directory), _onnxruntime_library(onnxruntime),
                         reference, python, script)
    return json.loads(text)


def runtime_matrix(
    report: PathLike,
    directory: PathLike,
    *,
    runtimes: Iterable[PathLike],
    jobs: Optional[int] = None,
    output: Optional[PathLike] = None,
) -> dict[str, Any]:
    """Execute every record of the report file ``report`` (or one record) under each ONNX Runtime of
    ``runtimes`` — a library path, or ``"X.Y.Z"`` for a release of the runtime cache (``make runtimes``) — each
    in its own process, up to ``jobs`` at once (default: the number of cores), and return the runtime matrix
    (``nnx.runtime-matrix/1``, doc/runtime-matrix.md: every runtime's records and the drift between them);
    written atomically to ``output`` when given. A runtime that crashes or hangs is that runtime's
    ``runtime-error`` or ``load-error``; the others complete. Refused: an invalid report, a release not in the
    cache (:class:`UsageError`)."""
    package_parent = str(Path(__file__).resolve().parent.parent)  # this very package, whatever sys.path says
    cell = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); from nnx._matrix_cell import main; "
            "sys.exit(main(sys.argv[1:]))", package_parent]
    text = _core.runtime_matrix(os.fspath(report), os.fspath(directory), [os.fspath(r) for r in runtimes],
                                jobs or 0, cell, None if output is None else os.fspath(output))
    return json.loads(text)


def build_model(config: Mapping[str, Any] = MODEL) -> "BuiltModel":
    """The PyTorch network of a model config (doc/record-format.md §2) holding its deterministic weights, as
    a :class:`BuiltModel` (``.net``, ``.config``, ``.weights_sha256``, ``.parameter_shapes``). The weights are
    the core's PyTorch-exact draws (``torch.randn(shape, generator=Generator().manual_seed(seed)) * std``
    per parameter in order), handed over as raw float32 bytes; the network class is the one the exporter
    worker exports (``nnx/_worker/nnx_torch_model.py``). torch is imported here, not when nnx is imported.
    Refused (:class:`ConformanceError`): an invalid config, or one whose ``weights_sha256`` (a record's
    config carries one) differs from its weights' digest."""
    parameters, digest, full = _core.model_weights(_dumps(config, "the model config"))
    import torch

    tensors = [
        (name, tuple(shape), torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(shape))
        for name, shape, raw in parameters
    ]
    full_config = json.loads(full)
    net = _torch_model().build_network(full_config, tensors)
    return BuiltModel(net=net, config=full_config, weights_sha256=digest,
                      parameter_shapes=tuple((name, shape) for name, shape, _ in tensors))


@dataclass(frozen=True)
class BuiltModel:
    """What :func:`build_model` returns: ``net`` the ``torch.nn.Module`` (train mode, as PyTorch makes it;
    call ``net.eval()`` for the reference forward), ``config`` the full model config with its
    ``weights_sha256``, and ``parameter_shapes`` the (name, shape) pairs in PyTorch's order."""

    net: Any
    config: dict[str, Any]
    weights_sha256: str
    parameter_shapes: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def device(self) -> Any:
        """Where the network's parameters are (the CPU)."""
        return next(self.net.parameters()).device


# --- checking -------------------------------------------------------------------------------------------------


def verify_artifacts(record: Mapping[str, Any], directory: PathLike) -> None:
    """Check every artifact of ``record`` under ``directory/<artifacts.directory>`` byte for byte. Returns
    None when all verify; else raises :class:`ConformanceError` naming every problem (``<path>: missing``,
    ``<path>: hash mismatch``, ``<path>: not in the record``, ``<path>: a symlink``) in ``problems``."""
    problems = _core.verify_artifacts(record, os.fspath(directory))
    if problems:
        raise _not_verified(record, directory, problems)


def _not_verified(record: Mapping[str, Any], directory: PathLike, problems: Sequence[str]) -> ConformanceError:
    where = os.path.join(os.fspath(directory), str(record.get("artifacts", {}).get("directory", "")))
    return ConformanceError(
        f"the artifacts in {where} do not verify ({len(problems)} problem{'s' if len(problems) != 1 else ''}):"
        + "".join(f"\n  - {p}" for p in problems),
        list(problems),
    )


def verify_artifacts_many(records: Iterable[Mapping[str, Any]], directory: PathLike) -> list[list[str]]:
    """:func:`verify_artifacts` of many records under one ``directory`` in one call: the problems of each
    record, in order, an empty list for one whose artifacts all verify; never raises for artifacts that do
    not verify (only for a record that is not strict JSON or is malformed, or an unreadable file). Not in
    ``__all__``: the original has no such function."""
    items = records if isinstance(records, (list, tuple)) else list(records)
    return _core.verify_artifacts_many(items, os.fspath(directory))


def validate_record(record: Any) -> None:
    """Refuse a record that breaks any rule of ``nnx.export-conformance/1`` (record-format §6):
    :class:`ConformanceError` naming every problem (also in ``problems``)."""
    _core.validate_record(record)


def validate_records(records: Iterable[Any]) -> list[list[str]]:
    """Validate many records in one call (record-format §6): the problems of each record, in order, an empty
    list for a valid one; never raises for an invalid record (only for one that is not strict JSON). Not in
    ``__all__``: the original has no such function."""
    items = records if isinstance(records, (list, tuple)) else list(records)
    return _core.validate_records(items)  # a new list of lists of str


# --- reporting ------------------------------------------------------------------------------------------------

#: What the reporting functions take: a report ``{format, status, profiles}`` (as ``run_profiles`` returns),
#: a bare ``{"profiles": [...]}`` mapping, or the records themselves (a list or any sequence).
Records = Union[Mapping[str, Any], Iterable[Mapping[str, Any]]]


def exit_code(report: Records) -> int:
    """0 when every record passed (and there is one); else the exit code of the first failing record's
    class (:data:`EXIT_CODES`); 1 for no records or an unknown failure."""
    return _core.exit_code(_dumps(_records_value(report), "the records", strict=False))


def summary_lines(report: Records) -> list[str]:
    """One line per record: ``<profile>: <status>[ (<failure>)]; level=...; n/m input cases passed``."""
    return list(_core.summary_lines(_dumps(_records_value(report), "the records", strict=False)))


def save_report(report: Records, path: PathLike) -> None:
    """Write ``{format, status, profiles}`` (from a report whose format and status agree with its records, a
    bare ``{"profiles": [...]}``, or the records) to ``path`` atomically, sorted keys, 2-space indent,
    newline at the end — after validating every record (:class:`ConformanceError` names the problems;
    nothing is written then)."""
    _core.save_report(_dumps(_records_value(report), "the report"), os.fspath(path))


def default_artifacts_root(report_path: PathLike) -> Path:
    """Where a report's artifacts go unless told otherwise: ``<report folder>/<report stem>-artifacts``
    (the core's rule, the same for the command line)."""
    return Path(_core.default_artifacts_root(os.fspath(report_path)))


def _records_value(records: Any) -> Any:
    if isinstance(records, Mapping):
        return records
    return list(records)  # any iterable of records (a generator too)


def _directory(directory: Any, signature: str) -> str:
    """The artifacts folder as text; a TypeError naming the signature for anything else (code written for
    the earlier ``run_profiles(profiles, root)`` passes a list or None first)."""
    try:
        return os.fspath(directory)
    except TypeError:
        raise TypeError(f"{signature}: directory must be a path, not {type(directory).__name__}") from None


_TORCH_MODEL: Any = None


def _torch_model() -> Any:
    """The package's nnx/_worker/nnx_torch_model.py (the network class the worker exports), loaded once."""
    global _TORCH_MODEL
    if _TORCH_MODEL is None:
        import importlib.util

        path = Path(__file__).resolve().parent / "_worker" / "nnx_torch_model.py"
        spec = importlib.util.spec_from_file_location("nnx._torch_model", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the network module {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules.setdefault("nnx._torch_model", module)
        _TORCH_MODEL = sys.modules["nnx._torch_model"]
    return _TORCH_MODEL
