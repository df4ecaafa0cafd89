"""One forked child per module request (worker/PROTOCOL.md, "Module profiles"): the user's module, its
imports and its globals never share a process with another profile's.

`run_in_child(work)` forks the warm worker (torch, onnx and onnxscript already imported), runs `work()` in
the child, which sends its answer (a JSON object) to the parent over a pipe and ends with `os._exit`. The
child has no standard input (/dev/null; `input()` and `breakpoint()` fail at once, saying so). The
child's stdout goes to a temp file for its whole life (an export inside captures its own log); the parent
passes that text on to its own stdout (the core's log) afterwards. The child uses one intra-op thread: a
forked child that uses the parent's OpenMP pool deadlocks (measured with torch 2.13: a conv forward in a
child of a parent that had run one hangs forever), one thread does not. Only the standard library is
imported at module level.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import traceback

from nnx_worker_model import describe

RESPONSE_FD = 3  # the worker's response channel: a child never writes it, so it closes its copy
NO_STDIN = ("the module's process has no standard input (it is /dev/null): remove the input() or "
            "breakpoint() call, or run the factory yourself to debug it")


class ChildDied(Exception):
    """The child ended without a complete answer; str(exc) is "<signal/status>"; `log` its stdout's tail."""

    def __init__(self, how: str, log: str):
        super().__init__(how)
        self.log = log


class _NoInput:
    """The child's sys.stdin: every read fails at once, saying why."""

    def fileno(self) -> int:
        return 0

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return True

    def _refuse(self, *_args, **_kwargs):
        raise EOFError(NO_STDIN)

    read = readline = readlines = __next__ = _refuse

    def __iter__(self):
        return self


def _no_breakpoint(*_args, **_kwargs):
    raise RuntimeError(f"breakpoint(): {NO_STDIN}")


def _without_stdin() -> None:
    """Descriptor 0 on /dev/null, sys.stdin and breakpoint() failing at once: the worker's stdin is the core's
    request stream, which a module's input() would block on until the export's deadline."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = _NoInput()
    sys.breakpointhook = _no_breakpoint


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {number} ({name})"
    if os.WIFEXITED(status):
        return f"exit status {os.WEXITSTATUS(status)} before answering"
    return f"wait status {status}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child(work, write_fd: int, out_fd: int) -> None:
    """The child's whole life: never returns (os._exit), whatever `work` does."""
    status = 0
    try:
        try:
            os.close(RESPONSE_FD)
        except OSError:
            pass
        os.dup2(out_fd, 1)
        _without_stdin()
        try:
            import torch

            torch.set_num_threads(1)
            answer = work()
        except BaseException as exc:  # noqa: BLE001 - the parent reports it
            traceback.print_exc()
            answer = {"nnx_internal_error": describe(exc)}
        text = json.dumps(answer, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
        _write_all(write_fd, text.encode("utf-8", errors="replace"))
    except BaseException:  # noqa: BLE001
        status = 70
    finally:
        flush_and_exit(status)


def flush_and_exit(status: int) -> None:
    """Flushes the log streams and ends the process at once (no interpreter teardown: every file is closed,
    every answer written). The worker's own end (nnx_worker.serve) and a forked child's."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(status)


def run_in_child(work, log_lines: int = 5) -> dict:
    """`work()`'s answer as computed in a forked child. Raises ChildDied when the child ends without a
    complete answer, RuntimeError when the child reports that `work` itself failed (a worker bug)."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as out:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(work, write_fd, out.fileno())
        os.close(write_fd)
        chunks = []
        with os.fdopen(read_fd, "rb") as pipe:
            while True:
                chunk = pipe.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    try:
        answer = json.loads(b"".join(chunks)) if chunks else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or status != 0:
        raise ChildDied(_how(status), "\n".join(text.splitlines()[-log_lines:]))
    if "nnx_internal_error" in answer:
        raise RuntimeError(f"in the module's process: {answer['nnx_internal_error']}")
    return answer
