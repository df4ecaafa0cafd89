"""The exporter worker of this interpreter (doc/architecture.md, "The worker's lifetime"; the rule is the core's,
src/app/worker_pool.h, the same for every front end).

The first call that needs the worker (:func:`run_profile`, :func:`run_profiles`, :func:`execute` with the
torch reference) starts it and imports torch in it; when the call ends the worker waits for the next call,
which reuses it when it would start an equal one (the same interpreter, worker script, environment and
limits), so torch is imported once per process. A worker that crashed, hung or was interrupted during a
call is stopped, and the next call starts a fresh one. An idle worker stops after the idle timeout (120 s by
default), at interpreter exit, or on :func:`close_workers`; a child made by ``os.fork`` neither inherits nor
stops its parent's workers. Each call still forks a clean child of the worker for a module profile, so no
user module stays imported into a later call.
"""

from __future__ import annotations

import atexit
import contextlib
import math
from collections.abc import Iterator
from typing import Optional

from . import _core
from ._errors import ArgumentError


def close_workers() -> None:
    """Stop every idle exporter worker of this process now (they stop side by side); a later call starts
    one again."""
    _core.close_workers()


def _idle_seconds(seconds: object) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
        raise ArgumentError(f"idle_timeout must be a number of seconds of at least 0, not {seconds!r}")
    return float(seconds)


def set_worker_idle_timeout(seconds: float) -> None:
    """How long an idle worker waits for the next call before it stops (seconds; 0: each call stops its own
    worker, as a fresh process would)."""
    _core.set_worker_idle_seconds(_idle_seconds(seconds))


@contextlib.contextmanager
def workers(idle_timeout: Optional[float] = None) -> Iterator[None]:
    """``with workers():`` — the workers started inside the block stop when it ends (``idle_timeout``, when
    given, holds inside it)."""
    before = _core.worker_idle_seconds()
    if idle_timeout is not None:
        set_worker_idle_timeout(idle_timeout)
    try:
        yield
    finally:
        _core.set_worker_idle_seconds(before)
        close_workers()


atexit.register(_core.close_workers)  # before the interpreter goes: the workers stop while it can still wait
