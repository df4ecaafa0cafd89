"""One forked child per module request (worker/PROTOCOL.md, "Module profiles"): the user's module, its
imports and its globals never share a process with another profile's.

`run_in_child(work)` forks the warm worker (torch, onnx and onnxscript already imported), runs `work()` in
the child, which sends its answer (a JSON object and its tensor frames, nnx_worker_tensors.py) to the parent
over a pipe and ends with `os._exit`. The
child's stdout goes to a temp file for its whole life (an export inside captures its own log); the parent
passes that text on to its own stdout (the core's log) afterwards. The child uses one intra-op thread: a
forked child that uses the parent's OpenMP pool deadlocks (measured with torch 2.13: a conv forward in a
child of a parent that had run one hangs forever), one thread does not. Only the standard library is
imported at module level.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import traceback

from nnx_worker_model import describe
from nnx_worker_tensors import WireError, read_message, write_message

RESPONSE_FD = 3  # the worker's response channel: a child never writes it, so it closes its copy


class ChildDied(Exception):
    """The child ended without a complete answer; str(exc) is "<signal/status>"; `log` its stdout's tail."""

    def __init__(self, how: str, log: str):
        super().__init__(how)
        self.log = log


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


def _child(work, write_fd: int, out_fd: int) -> None:
    """The child's whole life: never returns (os._exit), whatever `work` does."""
    status = 0
    try:
        try:
            os.close(RESPONSE_FD)
        except OSError:
            pass
        os.dup2(out_fd, 1)
        try:
            import torch

            torch.set_num_threads(1)
            answer = work()
        except BaseException as exc:  # noqa: BLE001 - the parent reports it
            traceback.print_exc()
            answer = {"nnx_internal_error": describe(exc)}
        write_message(write_fd, answer)
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
        with os.fdopen(read_fd, "rb") as pipe:
            try:
                answer = read_message(pipe)
            except (WireError, ValueError, MemoryError):
                answer = None
            while pipe.read(1 << 20):  # whatever follows the message: read to the end, so the child can exit
                pass
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    if not isinstance(answer, dict) or status != 0:
        raise ChildDied(_how(status), "\n".join(text.splitlines()[-log_lines:]))
    if "nnx_internal_error" in answer:
        raise RuntimeError(f"in the module's process: {answer['nnx_internal_error']}")
    return answer
