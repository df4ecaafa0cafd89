"""One forked child per module request (worker/PROTOCOL.md, "Module profiles"): the user's module, its
imports and its globals never share a process with another profile's.

`run_in_child(work)` forks the warm worker (torch, onnx and onnxscript already imported), or a warm parent of
it (nnx_worker_warm.py), runs `work()` in the child, which sends its answer (a JSON object and its tensor
frames, nnx_worker_tensors.py) to the parent over a pipe and ends with `os._exit`. The child holds neither
the response channel (RESPONSE_FD) nor the worker's ends of the warm parents' pipes (PRIVATE_FDS). The child
has no standard input (/dev/null; `input()` and `breakpoint()` fail at once, saying so). Its stdout
is a pipe the parent reads while the child runs, keeping the first and the last KEEP_BYTES of it (how many
bytes between were left out is said where they were), so however much a module prints the worker holds at
most twice that; the parent passes the kept text on to its own stdout (the core's log) afterwards. The
export ends when the child does: the parent waits for the child's exit, not for the end of its pipes, then
reads what they hold, and kills every process the child left behind (a data-loader's prefetcher holding the
pipes open): the forking process is their subreaper, so they become its children when the child ends. The child
uses one intra-op thread: a forked child that uses the parent's OpenMP pool deadlocks (measured with torch
2.13: a conv forward in a child of a parent that had run one hangs forever), one thread does not. Only the
standard library is imported at module level.
"""

from __future__ import annotations

import collections
import ctypes
import os
import select
import signal
import sys
import traceback

from nnx_worker_model import describe
from nnx_worker_tensors import WireError, read_message, write_message

RESPONSE_FD = 3  # the worker's response channel: a child never writes it, so it closes its copy
# The worker's own ends of its warm parents' pipes (nnx_worker_warm.py): a module's process closes its copies,
# so no module can write a request to a warm parent or read another profile's answer.
PRIVATE_FDS: set = set()
KEEP_BYTES = 1 << 20  # of the child's stdout, the first and the last MiB are kept
DRAIN_READS = 16  # reads of up to 1 MiB of a pipe after the child ended: more than a pipe can hold (1 MiB)
_PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphaned descendants become this process's children
NO_STDIN = ("the module's process has no standard input (it is /dev/null): remove the input() or "
            "breakpoint() call, or run the factory yourself to debug it")


class ChildDied(Exception):
    """The child ended without a complete answer; str(exc) is "<signal/status>"; `log` its stdout's tail."""

    def __init__(self, how: str, log: str):
        super().__init__(how)
        self.log = log


class OutputSpool:
    """A byte stream kept bounded as it is written: its first and last `keep` bytes, and how many between
    were left out."""

    def __init__(self, keep: int = KEEP_BYTES):
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.left_out = 0

    def add(self, chunk: bytes) -> None:
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.keep:
            self.left_out += len(self.tail) - self.keep
            del self.tail[:len(self.tail) - self.keep]

    def text(self) -> str:
        middle = f"\n[... {self.left_out} bytes of the module's output left out ...]\n" if self.left_out else ""
        return (self.head.decode("utf-8", errors="replace") + middle + self.tail.decode("utf-8", errors="replace"))


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


def close_quietly(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def drop_private(*more: int) -> None:
    """A forked process's first act: closes the response channel, the worker's ends of the warm parents' pipes
    and `more`, none of which a module's process (or a new warm parent) may hold."""
    close_quietly(RESPONSE_FD, *PRIVATE_FDS, *more)
    PRIVATE_FDS.clear()


def without_stdin() -> None:
    """Descriptor 0 on /dev/null, sys.stdin and breakpoint() failing at once: the worker's stdin is the core's
    request stream, which a module's input() would block on until the export's deadline."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = _NoInput()
    sys.breakpointhook = _no_breakpoint


def how_it_ended(status: int) -> str:
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
        drop_private()
        os.dup2(out_fd, 1)
        os.close(out_fd)
        without_stdin()
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


def _read_once(fd: int, sink) -> bool:
    """One read of `fd` into `sink`; False at end of file (or, non-blocking, when it holds nothing now)."""
    try:
        chunk = os.read(fd, 1 << 20)
    except BlockingIOError:
        return False
    if chunk:
        sink(chunk)
    return bool(chunk)


def _collect(pid: int, sinks: dict) -> int:
    """Reads the child's pipes into their sinks until the child has ended (not until its pipes have: a process
    it left behind may hold them open), then what they hold; the child's wait status."""
    reading = dict(sinks)
    while reading:
        ready, _, _ = select.select(list(reading), [], [], 0.05)
        for fd in ready:
            if not _read_once(fd, reading[fd]):
                del reading[fd]
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            for fd, sink in reading.items():  # everything the child wrote is in its pipe by now
                os.set_blocking(fd, False)
                for _ in range(DRAIN_READS):  # no more than a pipe holds: a process left behind may write on
                    if not _read_once(fd, sink):
                        break
            return status
    return os.waitpid(pid, 0)[1]


def children() -> set:
    """The pids of this process's children (from /proc)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            if int(stat[stat.rindex(b")") + 2:].split()[1]) == me:
                found.add(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def end_left_behind(before: set) -> None:
    """Kills and reaps every child of the worker that was not one before the fork: the processes the module's
    child left behind, the worker's (their subreaper's) once it ended; their own children follow them."""
    for _ in range(100):
        left = children() - before
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in left:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def become_subreaper() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class _ChunkStream:
    """The child's answer as a stream over the chunks the pipe gave, each chunk let go once read past: its
    frames are read out one at a time (each joined once, the one copy a frame needs) without first joining
    the whole answer into a second copy and reading a third out of it."""

    def __init__(self, chunks: list):
        self._chunks = collections.deque(chunks)
        chunks.clear()
        self._offset = 0  # into the first chunk

    def _take(self, size: int, until_newline: bool) -> bytes:
        pieces = []
        while self._chunks and size != 0:
            head = memoryview(self._chunks[0])[self._offset:]
            end = len(head) if size < 0 else min(size, len(head))
            if until_newline:
                newline = bytes(head[:end]).find(b"\n")
                end = end if newline < 0 else newline + 1
            pieces.append(head[:end])
            size -= end if size > 0 else 0
            self._offset += end
            if self._offset == len(self._chunks[0]):
                self._chunks.popleft()
                self._offset = 0
            if until_newline and pieces[-1][-1:] == b"\n":
                break
        return b"".join(pieces)

    def read(self, size: int = -1) -> bytes:
        return self._take(size, False)

    def readline(self) -> bytes:
        return self._take(-1, True)


def run_in_child(work, log_lines: int = 5) -> dict:
    """`work()`'s answer as computed in a forked child. Raises ChildDied when the child ends without a
    complete answer, RuntimeError when the child reports that `work` itself failed (a worker bug)."""
    become_subreaper()
    read_fd, write_fd = os.pipe()
    out_read, out_write = os.pipe()
    before = children()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.close(out_read)
        _child(work, write_fd, out_write)
    os.close(write_fd)
    os.close(out_write)
    chunks, spool = [], OutputSpool()
    try:
        status = _collect(pid, {read_fd: chunks.append, out_read: spool.add})
    finally:
        os.close(read_fd)
        os.close(out_read)
        end_left_behind(before)
    text = spool.text()
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    try:
        answer = read_message(_ChunkStream(chunks)) if chunks else None
    except (WireError, ValueError, MemoryError):
        answer = None
    if not isinstance(answer, dict) or status != 0:
        raise ChildDied(how_it_ended(status), "\n".join(text.splitlines()[-log_lines:]))
    if "nnx_internal_error" in answer:
        raise RuntimeError(f"in the module's process: {answer['nnx_internal_error']}")
    return answer
