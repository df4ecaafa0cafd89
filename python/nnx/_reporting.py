"""Reporting through the core: exit codes, summary lines and the saved report of a report, a bare
``{"profiles": [...]}`` mapping or the records themselves."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Optional, Union

from . import _core
from ._boundary import PathLike, _dumps, _path, _records_value
from ._signing import _sign_if_asked


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


def save_report(report: Records, path: PathLike, *, sign_key: Optional[PathLike] = None) -> None:
    """Write ``{format, status, profiles}`` (from a report whose format and status agree with its records, a
    bare ``{"profiles": [...]}``, or the records) to ``path`` atomically, sorted keys, 2-space indent,
    newline at the end — after validating every record (:class:`ConformanceError` names the problems;
    nothing is written then). ``sign_key``: an Ed25519 OpenSSH private key file; then ``<path>.sig`` is
    written beside it (:func:`sign_document`), the report's bytes unchanged."""
    if sign_key is not None:
        _path(sign_key, "sign_key")
    _core.save_report(_dumps(_records_value(report), "the report"), _path(path, "path"))
    _sign_if_asked(_path(path, "path"), sign_key)


LabelledPaths = Iterable[tuple[str, PathLike]]


def check_output_paths(outputs: LabelledPaths, *, inputs: LabelledPaths = (), roots: LabelledPaths = ()) -> None:
    """The core's output-path rule (doc/architecture.md, "Output paths"), for a front end that writes files:
    each of ``outputs`` (``(label, path)`` pairs; the label names it in the message, as ``"--output"``) must
    be a regular file or a new one (never a folder, FIFO, device or socket), none of ``inputs``, outside
    every artifacts root of ``roots`` and no other output (paths compared resolved, existing files also by
    device and inode). A broken rule is a :class:`UsageError` naming the path and the way out."""
    def pairs(items: LabelledPaths) -> list[tuple[str, str]]:
        return [(str(label), _path(path, str(label))) for label, path in items]
    _core.check_output_paths(pairs(outputs), pairs(inputs), pairs(roots))


def default_artifacts_root(report_path: PathLike) -> Path:
    """Where a report's artifacts go unless told otherwise: ``<report folder>/<report stem>-artifacts``
    (the core's rule, the same for the command line)."""
    return Path(_core.default_artifacts_root(_path(report_path, "report_path")))
