"""The boundary of nnx.export_conformance and the C++ core: Python values as the strict JSON text the core reads,
and the path arguments of the public functions (the core then decides everything)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

from ._errors import ArgumentError, ConformanceError, UsageError

PathLike = Union[str, "os.PathLike[str]"]


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


def _records_value(records: Any) -> Any:
    if isinstance(records, Mapping):
        return records
    return _items(records, "the records")  # any iterable of records (a generator too)


def _items(values: Any, what: str) -> list:
    """An iterable argument as a list (a list or tuple as it is); an :class:`ArgumentError` naming ``what`` for
    anything that cannot be iterated (None, a number)."""
    if isinstance(values, (list, tuple)):
        return values  # type: ignore[return-value]
    if not isinstance(values, Iterable):
        raise ArgumentError(f"{what} must be a list (or another iterable), not {type(values).__name__}")
    return list(values)


def _path(value: Any, what: str) -> str:
    """A path argument as the core takes it: a str or an ``os.PathLike`` of one. Anything else (None, a
    number, bytes) is an :class:`ArgumentError` naming ``what``; a NUL, which no file name holds, a
    :class:`UsageError`."""
    try:
        path = os.fspath(value)
    except TypeError:
        raise ArgumentError(f"{what} must be a path (str or os.PathLike), not {type(value).__name__}") from None
    if not isinstance(path, str):
        raise ArgumentError(f"{what} must be a path as text, not {type(path).__name__} (decode it first)")
    if "\0" in path:
        raise UsageError(f"{what} {path!r} holds a NUL byte, which no path can hold")
    return path


def _optional_path(value: Any, what: str) -> Optional[str]:
    return None if value is None else _path(value, what)


def _optional_text(value: Any, what: str) -> Optional[str]:
    """None or a str; an :class:`ArgumentError` naming ``what`` for anything else (bytes, a number)."""
    if value is None or isinstance(value, str):
        return value
    raise ArgumentError(f"{what} must be a str or None, not {type(value).__name__}")


def _optional_flag(value: Any, what: str) -> Optional[bool]:
    """None, True or False; an :class:`ArgumentError` naming ``what`` for anything else (1, "yes")."""
    if value is None or isinstance(value, bool):
        return value
    raise ArgumentError(f"{what} must be True, False or None, not {type(value).__name__}")


def _directory(directory: Any, signature: str) -> str:
    """The artifacts folder as text; an :class:`ArgumentError` (a TypeError too) naming the signature for
    anything else (code written for the earlier ``run_profiles(profiles, root)`` passes a list or None first)."""
    return _path(directory, f"{signature}: directory")
