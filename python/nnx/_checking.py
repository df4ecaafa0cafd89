"""Checking records through the core: every rule of the format (record-format §6) and every artifact byte
(§7), for one record or many in one call."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _core
from ._boundary import PathLike, _items, _path
from ._errors import ArtifactIOError, ConformanceError
from ._vocabulary import EXIT_CODES


# The class of artifacts that do not verify or cannot be read, whoever verifies them: src/artifacts/artifacts.h
# kUnverifiedArtifacts, which execute's load stage records (doc/record-format.md §7, "One verdict per problem").
_UNVERIFIED = "hash-mismatch"


def verify_artifacts(record: Mapping[str, Any], directory: PathLike) -> None:
    """Check every artifact of ``record`` under ``directory/<artifacts.directory>`` byte for byte. Returns
    None when all verify; else raises :class:`ConformanceError` naming every problem (``<path>: missing``,
    ``<path>: hash mismatch``, ``<path>: not in the record``, ``<path>: a symlink``) in ``problems``, or
    :class:`ArtifactIOError` for a file that cannot be read; either with ``failure`` ``"hash-mismatch"`` and
    ``exit_code`` 14, the verdict ``execute`` records. A ``directory`` or profile folder that does not exist
    is a :class:`UsageError` (exit 2) naming the path."""
    try:
        problems = _core.verify_artifacts(record, _path(directory, "directory"))
    except ArtifactIOError as error:
        raise _unverified(error) from None
    if problems:
        raise _unverified(_not_verified(record, directory, problems))


def _unverified(error: ConformanceError) -> ConformanceError:
    error.failure = _UNVERIFIED
    error.exit_code = EXIT_CODES[_UNVERIFIED]
    return error


def _not_verified(record: Mapping[str, Any], directory: PathLike, problems: Sequence[str]) -> ConformanceError:
    artifacts = record.get("artifacts") if isinstance(record, Mapping) else None
    folder = artifacts.get("directory", "") if isinstance(artifacts, Mapping) else ""
    where = os.path.join(os.fspath(directory), str(folder))
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
    return _core.verify_artifacts_many(_items(records, "records"), _path(directory, "directory"))


def validate_record(record: Any) -> None:
    """Refuse a record that breaks any rule of ``nnx.export-conformance/1`` (record-format §6):
    :class:`ConformanceError` naming every problem (also in ``problems``)."""
    _core.validate_record(record)


def validate_records(records: Iterable[Any]) -> list[list[str]]:
    """Validate many records in one call (record-format §6): the problems of each record, in order, an empty
    list for a valid one; never raises for an invalid record (only for one that is not strict JSON). Not in
    ``__all__``: the original has no such function."""
    return _core.validate_records(_items(records, "records"))  # a new list of lists of str
