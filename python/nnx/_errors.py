"""The exceptions of nnx.export_conformance (raised by the C++ core through nnx._core)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ArgumentError", "ArtifactIOError", "ConformanceError", "FolderInUse", "RuntimeUnavailable", "UsageError",
           "WriteError"]


class ConformanceError(ValueError):
    """A refused record, report, profile or folder. ``problems`` lists what the core found, one by one
    (a single refusal is its own message). ``failure`` and ``exit_code`` are the verdict the command line gives
    the same problem (doc/record-format.md §7, "One verdict per problem"): no class and exit 1 for a refusal,
    ``"hash-mismatch"`` and 14 for artifacts that do not verify (``verify_artifacts``), exit 2 for a
    :class:`UsageError`, 10 for :class:`RuntimeUnavailable`."""

    failure: str | None = None
    exit_code: int = 1

    def __init__(self, message: str, problems: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems) or (message,)


class UsageError(ConformanceError):
    """A choice the caller must change (the command line's exit 2): an unknown tested name (the core's one
    refusal, src/profile/profile.h: the same message as the command line's), a bad ``jobs``, ``force``
    refusing a symlinked folder, an artifacts ``directory`` (or its profile folder) that does not exist, or a
    profile ``provider`` this build's ONNX Runtime cannot run."""

    exit_code = 2


class ArgumentError(UsageError, TypeError):
    """An argument of a type the function does not take (None or a number where a path or a name is needed,
    bytes where text is, a ``jobs`` that is no whole number or fits no count): a :class:`UsageError`, and a
    ``TypeError`` too, as
    Python's own refusal of such an argument is."""


class FolderInUse(UsageError):
    """A profile folder ``root/<name>`` that exists as a file or already holds files (without ``force``).
    ``problems[0]`` is the core's own words without the hint about ``force``."""


class RuntimeUnavailable(ConformanceError):
    """``execute`` cannot open an ONNX Runtime library offering C API 21 (the command line's exit 10)."""

    exit_code = 10


class ArtifactIOError(ConformanceError):
    """An artifact file or folder that could not be read; the message names the OS error."""


class WriteError(ConformanceError, OSError):
    """A file the call writes (``save_report``'s report, ``runtime_matrix``'s ``output``) that could not be
    written; the message names the path and the OS error. An ``OSError`` too, as it always was."""
