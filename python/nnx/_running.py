"""Running profiles and executing records through the core (app/run_report.h, app/execute_report.h, the runtime
matrix), with the exporter worker of this interpreter and the ONNX Runtime library the core's order chooses."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Optional, Union

from . import _core
from ._boundary import PathLike, _directory, _dumps, _items, _optional_flag, _optional_path, _optional_text, _path
from ._errors import ArgumentError, UsageError
from ._module_objects import runnable_item
from ._module_profiles import ModuleProfile
from ._profile_family import ProfileFamily
from ._profiles import Profile, _profile_item
from ._signing import _sign_if_asked


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
    """The library to name explicitly, or None to let the core search; the order is the core's
    (runtime/library_search.h): this only finds the installed wheel's library when the core's order reaches
    the system loader's step."""
    return _core.onnxruntime_library(_optional_path(explicit, "onnxruntime"), _core.bundled_onnxruntime(),
                                     _onnxruntime_wheel_library)


def run_profile(
    profile_or_name: Union[str, Profile, ModuleProfile],
    directory: PathLike,
    *,
    source_revision: Optional[str] = None,
    force: bool = False,
    onnxruntime: Optional[PathLike] = None,
    localize: Optional[bool] = None,
) -> dict[str, Any]:
    """Run one profile (a :class:`Profile`, a :class:`ModuleProfile` or a tested name) with its artifacts in ``directory/<name>/`` and
    return its record. Refused before anything is written: an unknown name, an invalid Profile or one
    reusing a tested name (:class:`ConformanceError`; an unknown name is its :class:`UsageError`), a folder
    ``directory/<name>`` that exists as a file or, without ``force``, holds files (:class:`FolderInUse`);
    ``force`` clears that one folder first; a ``provider`` this build's ONNX Runtime cannot run
    (:class:`UsageError` naming the providers there are and ``onnxruntime=PATH``). A failing stage never
    raises: the record says what passed.
    ``source_revision`` is recorded with origin ``given`` ('' records null); else the git checkout this
    build belongs to, else ``unknown`` (an installed copy).
    ``localize``: None localises a record whose parity found a mismatch, True every record, False none
    (doc/localisation.md: the parity detail's ``localisation``, the repro in ``directory/<name>/repro``, a
    tested profile's beside it in ``directory/<name>-repro``)."""
    python, script = _worker()
    root = _directory(directory, "run_profile(profile_or_name, directory, *, source_revision=None, force=False, "
                                 "onnxruntime=None, localize=None)")
    localize = _optional_flag(localize, "localize")
    text = _core.run_profile(
        _dumps(_profile_item(runnable_item(profile_or_name, root, force)), "the profile"),
        root,
        _optional_text(source_revision, "source_revision"),
        bool(force),
        _onnxruntime_library(onnxruntime),
        python,
        script,
        localize,
    )
    return json.loads(text)


def run_profiles(
    directory: PathLike,
    names: Optional[Iterable[Union[str, Profile, ModuleProfile]]] = None,
    *,
    source_revision: Optional[str] = None,
    force: bool = False,
    onnxruntime: Optional[PathLike] = None,
    jobs: Optional[int] = None,
    localize: Optional[bool] = None,
) -> dict[str, Any]:
    """Run several profiles into ``directory`` and return the report ``{format, status, profiles}`` (the
    core's report: ``status`` is ``passed`` iff there is a record and every record passed; ``profiles`` the
    records in run order). ``names``: tested names (a :class:`Profile` or :class:`ModuleProfile` too); None means every tested
    profile, torchscript first; a name given twice runs once. Everything is checked before anything is
    written: an unknown tested name is a :class:`UsageError`, an invalid Profile a :class:`ConformanceError`,
    a ``provider`` this build's ONNX Runtime cannot run a :class:`UsageError`, and without ``force`` a profile
    folder holding files is :class:`FolderInUse`; ``force`` clears only the chosen profiles' folders.
    ``names`` may be :func:`load_profiles`'s list. ``jobs``: profiles exported at once, each by its own worker (None: auto, one worker plus those the run's exports pay for, at most one per
    core; below 1 a :class:`UsageError`, anything but a whole number an :class:`ArgumentError`); the records
    come back in run order whatever it is. ``localize``: as :func:`run_profile`'s."""
    root = _directory(directory, "run_profiles(directory, names=None, *, source_revision=None, force=False, "
                                 "onnxruntime=None, jobs=None, localize=None)")
    localize = _optional_flag(localize, "localize")
    if names is None:
        items: Any = None
    elif isinstance(names, (str, ProfileFamily, Mapping)):
        items = [_profile_item(runnable_item(names, root, force))]
    else:
        items = [_profile_item(runnable_item(item, root, force)) for item in _items(names, "names")]
    python, script = _worker()
    text = _core.run_profiles(
        _dumps(items, "the profiles"),
        root,
        _optional_text(source_revision, "source_revision"),
        bool(force),
        _onnxruntime_library(onnxruntime),
        python,
        script,
        jobs,
        localize,
    )
    return json.loads(text)


def execute(
    record: Union[Mapping[str, Any], PathLike],
    directory: PathLike,
    *,
    onnxruntime: Optional[PathLike] = None,
    reference: Optional[str] = None,
    localize: Optional[bool] = None,
    output: Optional[PathLike] = None,
    keep_outputs: bool = False,
    optimization_level: Optional[str] = None,
    intra_op_threads: Optional[int] = None,
    session_config: Optional[Mapping[str, str]] = None,
    provider: Optional[str] = None,
    provider_options: Optional[Mapping[str, str]] = None,
) -> dict[str, Any]:
    """Run a saved record's load and parity stages again on its artifacts under ``directory``: the record is
    validated, its weights rebuilt and compared with ``weights_sha256``, every artifact verified before
    anything is loaded (a mismatch is a ``hash-mismatch`` record). ``record`` is a record or a report (what
    ``json.load`` of its file gives), or the path of its file. Returns the new record for a record and, for a
    report, the new report with every record (``status`` ``failed`` when any record failed; a record whose
    check did not pass, which recorded no artifacts, kept as it is), as the command line's ``execute`` writes
    them; the new records' versions describe the environment that produced them.
    Parity compares ONNX Runtime with ``reference``: ``"torch"`` (PyTorch in the exporter worker; a module
    record's factory is imported, after its file — found beside the record's file when you pass its path,
    else the record's copy in its artifacts — is checked against the record's ``source_sha256``), ``"native"`` (no PyTorch: the core's C++ forward; for a
    module record, the outputs it stored) or ``"stored"`` (a module record's stored outputs). None (default)
    lets the core choose for each record (``execution_reference``): the stored outputs of a module record
    (``nnx.module-conformance/1``), with no Python and without importing its module, whatever the record
    came in; ``"torch"`` for an export record, as the original. Refused: an invalid record, a record (not a
    report's) whose check did not pass, a module factory file whose bytes differ from the record's
    (:class:`ConformanceError`), no usable ONNX Runtime or, for the torch reference, no usable PyTorch or a factory that does not import
    (:class:`RuntimeUnavailable`), an unknown reference (:class:`UsageError`). ``localize=True`` localises
    every record (doc/localisation.md: the parity detail's ``localisation``; no repro is written, as the
    command line writes one only beside its ``--output``) and, where the record has a module or network to
    rebuild, implies ``reference="torch"`` (another reference is a :class:`UsageError`; a data-only record is
    compared with ONNX's reference evaluator); None and False localise none. ``output``: the new record or
    report is also written there atomically; ``keep_outputs=True`` (with ``output``) keeps every compared
    case's outputs and reference values beside it for :func:`rejudge` (doc/rejudge.md). ``optimization_level``
    (``"ORT_DISABLE_ALL"`` ... ``"ORT_ENABLE_ALL"``), ``intra_op_threads``, ``session_config`` (KEY: VALUE
    strings), ``provider`` (an execution provider's name) and ``provider_options`` (KEY: VALUE strings given to
    that provider, e.g. ``{"precision": "FP32"}`` for ``"OpenVINOExecutionProvider"``; the CPU provider takes
    none: :class:`UsageError`) run a module or successor-format record under other session settings, which its
    new record says (doc/record-format.md §11; a tested profile's record refuses them: :class:`UsageError`)."""
    python, script = _worker()
    localize = _optional_flag(localize, "localize")
    if _optional_flag(keep_outputs, "keep_outputs") and output is None:
        raise UsageError("keep_outputs keeps the outputs beside output: give output too")
    if isinstance(record, (str, os.PathLike)):
        text, record_file = None, _path(record, "record")
    else:
        text, record_file = _dumps(record, "the record"), None
    out = _core.execute(text, record_file, _path(directory, "directory"), _onnxruntime_library(onnxruntime),
                        _optional_text(reference, "reference"), python, script, localize,
                        _optional_path(output, "output"), bool(keep_outputs),
                        _optional_text(optimization_level, "optimization_level"),
                        _whole_number(intra_op_threads, "intra_op_threads"),
                        _text_mapping(session_config, "session_config"), _optional_text(provider, "provider"),
                        _text_mapping(provider_options, "provider_options"))
    return json.loads(out)


def _whole_number(value: Any, what: str) -> Optional[int]:
    """None or an int (never a bool); an :class:`ArgumentError` naming ``what``."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ArgumentError(f"{what} must be a whole number or None, not {type(value).__name__}")


def _text_mapping(value: Any, what: str) -> dict[str, str]:
    """session_config, provider_options: None or a mapping of str to str; an :class:`ArgumentError` naming
    ``what`` otherwise."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ArgumentError(f"{what} must be a mapping of str KEY to str VALUE or None")
    return dict(value)


def _tolerance(value: Any, what: str) -> Optional[float]:
    """None or a real number (an int or float, never a bool); an :class:`ArgumentError` naming ``what``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{what} must be a number or None, not {type(value).__name__}")
    return float(value)


def rejudge(
    document: PathLike,
    *,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    output: Optional[PathLike] = None,
) -> dict[str, Any]:
    """The verdicts of the report, record or runtime matrix file ``document`` re-judged from the outputs kept
    beside it (``execute(..., output=..., keep_outputs=True)``, ``runtime_matrix(..., output=...)`` or their
    command-line forms) under ``rtol`` and ``atol`` (each the record's own when None), with nothing run again;
    returns the ``nnx.rejudged/1`` document (doc/rejudge.md: every case before and after, ``changed``, and the
    ``exit_code`` ``execute`` would give), written atomically to ``output`` when given. Refused: no kept
    outputs, a negative tolerance (:class:`UsageError`), kept outputs changed since or of another document
    (:class:`ConformanceError`)."""
    return json.loads(_core.rejudge(_path(document, "document"), _tolerance(rtol, "rtol"), _tolerance(atol, "atol"),
                                    _optional_path(output, "output")))


def runtime_matrix(
    report: PathLike,
    directory: PathLike,
    *,
    runtimes: Iterable[PathLike],
    jobs: Optional[int] = None,
    output: Optional[PathLike] = None,
    sign_key: Optional[PathLike] = None,
    optimization_levels: Iterable[str] = (),
    intra_op_threads: Iterable[int] = (),
    providers: Iterable[str] = (),
    session_config: Optional[dict[str, str]] = None,
    provider_options: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """Execute every record of the report file ``report`` (or one record) under each ONNX Runtime of
    ``runtimes`` — a library path, or ``"X.Y.Z"`` for a release of the runtime cache (``make runtimes``) — each
    in its own process, up to ``jobs`` at once (default: the number of cores), and return the runtime matrix
    (``nnx.runtime-matrix/1``, doc/runtime-matrix.md: every runtime's records and the drift between them);
    written atomically to ``output`` when given. A runtime that crashes or hangs is that runtime's
    ``runtime-error`` or ``load-error``; the others complete. Refused: an invalid report, a release not in the
    cache (:class:`UsageError`). ``sign_key``: with ``output``, ``<output>.sig`` is written beside it
    (:func:`sign_document`). The settings axes (doc/runtime-matrix.md, "Axes"): every release also runs at each
    of ``optimization_levels`` (``"ORT_DISABLE_ALL"`` ... ``"ORT_ENABLE_ALL"``), with each of
    ``intra_op_threads`` and on each of ``providers``; ``session_config`` ({KEY: VALUE}) is every cell's, and
    ``provider_options`` ({KEY: VALUE}) every cell's provider's (none of them CPUExecutionProvider, which takes
    none: :class:`UsageError`). An axis left empty holds the brief's value; module and successor-format records
    only."""
    if sign_key is not None and output is None:
        raise UsageError("sign_key signs the matrix written to output: give output too")
    package_parent = str(Path(__file__).resolve().parent.parent)  # this very package, whatever sys.path says
    cell = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); from nnx._matrix_cell import main; "
            "sys.exit(main(sys.argv[1:]))", package_parent]
    if isinstance(runtimes, (str, bytes)) or not isinstance(runtimes, Iterable):
        raise ArgumentError(f"runtimes must be a list of libraries or releases, not {type(runtimes).__name__}")
    axes = {"optimization_levels": optimization_levels, "intra_op_threads": intra_op_threads, "providers": providers}
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ArgumentError(f"{name} must be a list, not {type(values).__name__}")
    text = _core.runtime_matrix(_path(report, "report"), _path(directory, "directory"),
                                [_path(r, "each of runtimes") for r in runtimes], jobs, cell,
                                _optional_path(output, "output"), list(optimization_levels), list(intra_op_threads),
                                list(providers), _text_mapping(session_config, "session_config"),
                                _text_mapping(provider_options, "provider_options"))
    _sign_if_asked(_optional_path(output, "output"), sign_key)
    return json.loads(text)
