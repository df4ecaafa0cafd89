"""Warm parents (doc/warm-parents.md): a factory file's leading imports of installed packages
paid once per worker, not once per profile, with no code of the factory file run outside a module's process;
and `warm_imports`, what the worker itself imports before its first fork for a module op (torch, onnx,
onnxscript and the dynamo exporter's own modules).

`installed_imports(path, expected_sha256)` reads a FILE.py factory's leading import statements (the
docstring and `from __future__` skipped; the run ends at the first statement that is not an absolute
import of installed packages, so what it holds is exactly what a module's process would run first anyway).
A package is installed when it is already imported in the worker or found, with the worker's sys.path,
under site-packages, and nothing in the factory's folder bears its name (the module's process puts that
folder first on sys.path: a file there would be what it imports).

`WarmParents.answer(req, plan, ...)`: for each distinct tuple of such statements, one warm parent, forked from
the worker (torch, onnx and onnxscript imported), with no standard input and neither the worker's response
channel nor another warm parent's pipes, runs those statements and nothing else, then serves the worker's
module requests for that tuple over its own pipes as the worker serves the core's: each in a forked child
(nnx_worker_fork.run_in_child, every defence of a module's process). A warm parent is used only when it is
fit: its imports raised nothing, ran no tensor operation (a dispatched torch op with a tensor among its
arguments or results, watched by a TorchDispatchMode: a forked child of a process that ran one may deadlock
in its OpenMP pool) and left it one thread (a fork keeps no other thread). An unfit one ends at once and
its requests run in the worker's own forked children, as without warm parents. At most MAX_WARM_PARENTS
live (the least recently used ends first); all end with the worker (`close`).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import os
import signal
import site
import stat
import sys
import sysconfig
import time
import traceback

import nnx_worker_fork
from nnx_worker_fork import (RESPONSE_FD, become_subreaper, children, close_quietly, drop_private, end_left_behind,
                             flush_and_exit, how_it_ended)
from nnx_worker_model import ProtocolError, describe
from nnx_worker_tensors import WireError, read_message, write_message

MAX_WARM_PARENTS = 2
MAX_SOURCE_BYTES = 64 << 20  # as the core reads a factory file (kMaxFactoryFileBytes, src/artifacts/factory_copy.h)


# --------------------------------------------------------------------------------------------
# what the worker imports before it forks


# The dynamo exporter's own modules, which its first call in a process imports (measured with torch 2.13: 0.7 s
# of a tiny BERT's 2.9 s first export in a forked child): imported once in the worker, before it forks, instead.
# Only a saving: under a torch that lays them out otherwise, the first export imports what it needs.
DYNAMO_MODULES = ("torch.onnx._internal.exporter._core", "torch.onnx._internal.exporter._registration",
                  "onnxscript.function_libs.torch_lib.ops", "torch.export._trace", "torch._functorch.aot_autograd",
                  "torch._export.utils")


def warm_imports(op: str, exporter) -> None:
    """torch, onnx and onnxscript (and for dynamo, its exporter's modules) imported in the worker before it
    forks (the child starts warm)."""
    try:
        import torch  # noqa: F401
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"{op}: torch is not importable: {describe(exc)}") from None
    if op in ("module_export", "module_intermediates"):
        try:
            import onnx  # noqa: F401
            import onnxscript  # noqa: F401
        except BaseException as exc:  # noqa: BLE001
            raise ProtocolError(f"{op}: onnx/onnxscript is not importable: {describe(exc)}") from None
    if op in ("module_export", "module_intermediates") and exporter == "dynamo":
        for name in DYNAMO_MODULES:
            try:
                importlib.import_module(name)
            except ImportError:
                pass


# --------------------------------------------------------------------------------------------
# which statements a warm parent runs


def _site_folders() -> list:
    found = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    try:
        found.update(site.getsitepackages())
    except AttributeError:  # a virtualenv's old site module
        pass
    return [os.path.realpath(f) + os.sep for f in found if f]


def _installed(top: str, folder_names: set) -> bool:
    """The top-level package `top` is imported already or installed under site-packages, and no entry of the
    factory's folder would shadow it."""
    if top in folder_names or any(n.startswith(top + ".") for n in folder_names):
        return False
    if top in sys.modules:
        return True
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    where = spec.origin if spec is not None and spec.origin not in (None, "namespace") else None
    if where is None and spec is not None and spec.submodule_search_locations:
        where = list(spec.submodule_search_locations)[0]
    return where is not None and os.path.realpath(where).startswith(tuple(_site_folders()))


def _tops(node) -> list:
    """The top-level packages an absolute import statement imports; None for any other statement."""
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return None


def _small_file(path: str) -> bytes:
    """The bytes of the regular file at `path` (OSError for anything else or over MAX_SOURCE_BYTES: a FIFO
    never blocks the worker here)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            raise OSError(f"{path} is not a regular file of at most {MAX_SOURCE_BYTES} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)


def installed_imports(path: str, expected_sha256=None) -> list:
    """The leading import statements of the factory file at `path` that import installed packages (as
    ast.unparse writes them), at least one package among them not imported in the worker yet; [] when the
    file cannot be read or parsed, or holds other bytes than `expected_sha256` (nothing is pre-imported
    for a file that will be refused)."""
    try:
        source = _small_file(path)
        folder_names = set(os.listdir(os.path.dirname(path)))
        tree = ast.parse(source, path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if expected_sha256 is not None and hashlib.sha256(source).hexdigest() != expected_sha256:
        return []
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    statements, new = [], False
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        tops = _tops(node)
        if tops is None or not all(_installed(top, folder_names) for top in tops):
            break
        new = new or any(top not in sys.modules for top in tops)
        statements.append(ast.unparse(node))
    return statements if new else []


# --------------------------------------------------------------------------------------------
# the warm parent's own life (in the forked process)


def _import_watched(statements: list) -> dict:
    """Runs the statements, watching for tensor operations and threads; the facts the worker gets."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    tensor_ops = []

    class TensorOps(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            leaves = torch.utils._pytree.tree_leaves((args, kwargs, result))
            if any(isinstance(leaf, torch.Tensor) for leaf in leaves):
                tensor_ops.append(str(func))
            return result

    start, modules, unfit = time.perf_counter(), len(sys.modules), None
    with TensorOps():
        for statement in statements:
            try:
                exec(compile(statement, "<warm parent imports>", "exec", dont_inherit=True),  # noqa: S102
                     {"__name__": "nnx_warm_parent"})
            except BaseException as exc:  # noqa: BLE001 - the module's own process will meet it and say so
                unfit = f"{statement!r} raised {describe(exc)}"
                break
    threads = len(os.listdir("/proc/self/task"))
    if unfit is None and tensor_ops:
        unfit = f"its imports ran tensor operations ({', '.join(sorted(set(tensor_ops))[:3])})"
    if unfit is None and threads != 1:
        unfit = f"its imports started {threads - 1} thread(s), which a forked child would not have"
    return {"pid": os.getpid(), "imports": statements, "import_seconds": time.perf_counter() - start,
            "modules_imported": len(sys.modules) - modules, "unfit": unfit}


def _serve(ops: dict) -> None:
    """Answers the worker's module requests from descriptor 0 on RESPONSE_FD until the worker closes it."""
    stream = os.fdopen(0, "rb", closefd=False)
    while True:
        try:
            req = read_message(stream)
        except WireError:
            return  # out of step with the worker: end (it says so to the core)
        if req is None:
            return
        op = ops.get(req.get("op"))
        try:
            answer = op(req) if op else {"ok": False, "error": f"a warm parent serves no op {req.get('op')!r}"}
        except ProtocolError as exc:
            answer = {"ok": False, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - never die on a request; report it
            traceback.print_exc()
            answer = {"ok": False, "error": f"internal error in a warm parent: {describe(exc)}"}
        write_message(RESPONSE_FD, answer)


def _life(statements: list, ops: dict, requests: int, answers: int, workers_ends: tuple) -> None:
    """The warm parent's whole life: never returns (os._exit)."""
    status = 0
    try:
        drop_private(*workers_ends)
        nnx_worker_fork.without_stdin()  # its imports run with no input and no channel to the core
        facts = _import_watched(statements)
        os.dup2(requests, 0)
        os.dup2(answers, RESPONSE_FD)
        os.close(requests)
        os.close(answers)
        write_message(RESPONSE_FD, facts)
        if facts["unfit"] is None:
            _serve(ops)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        status = 70
    finally:
        flush_and_exit(status)


# --------------------------------------------------------------------------------------------
# the worker's side


class WarmParent:
    """One live warm parent: its pid, the worker's ends of its pipes, its facts."""

    def __init__(self, statements: list, ops: dict):
        become_subreaper()
        requests_read, self.requests = os.pipe()
        self.answers_fd, answers_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            _life(statements, ops, requests_read, answers_write, (self.requests, self.answers_fd))
        os.close(requests_read)
        os.close(answers_write)
        nnx_worker_fork.PRIVATE_FDS.update((self.requests, self.answers_fd))
        self.stream = os.fdopen(self.answers_fd, "rb", closefd=False)
        self.served, self.ended = 0, False
        try:
            self.facts = read_message(self.stream)
        except (WireError, OSError):
            self.facts = None
        if not isinstance(self.facts, dict):
            self.facts = {"imports": statements, "unfit": f"it ended while importing ({self.end()})"}
        elif self.facts["unfit"] is not None:
            self.end()

    def end(self) -> str:
        """Ends the warm parent (if it still lives) and reaps it; how it ended."""
        self.ended = True
        nnx_worker_fork.PRIVATE_FDS.difference_update((self.requests, self.answers_fd))
        close_quietly(self.requests, self.answers_fd)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            return how_it_ended(os.waitpid(self.pid, 0)[1])
        except ChildProcessError:
            return "already reaped"

    def answer(self, req: dict, died: dict) -> dict:
        """The warm parent's answer to `req`, or `died` saying the module's process died with its warm parent
        (which then ends)."""
        self.served += 1
        before = children()
        try:
            write_message(self.requests, req)
            answer = read_message(self.stream)
        except (WireError, OSError):
            answer = None
        if not isinstance(answer, dict):
            died["exception"] = f"the module's process died: the warm parent it was forked from ended ({self.end()})"
            answer = died
        end_left_behind(before | {self.pid})  # what the module left behind, orphaned by its warm parent's end
        answer["warm_parent"] = dict(self.facts, profiles=self.served)
        return answer


class WarmParents:
    """The worker's warm parents by their statements (least recently used first), and the unfit verdicts."""

    def __init__(self):
        self.live, self.unfit = {}, {}

    def answer(self, req: dict, plan: dict, cold, died: dict, ops: dict) -> dict:
        """`req` answered by the warm parent of its factory file's installed imports, else by `cold()` (no
        such imports, or their warm parent is unfit: the answer's `warm_parent` says why)."""
        if plan["factory_path"] is None:
            return cold()
        statements = installed_imports(plan["factory_path"], plan.get("source_sha256"))
        key = tuple(statements)
        if not statements:
            return cold()
        started = None
        if key not in self.live and key not in self.unfit:
            start = time.perf_counter()
            parent = WarmParent(statements, ops)
            started = ["warm_parent", time.perf_counter() - start]  # its fork and imports, for run --timings
            if parent.facts["unfit"] is not None:
                self.unfit[key] = parent.facts
            else:
                self._keep(key, parent)
        if key in self.unfit:
            answer = cold()
            answer["warm_parent"] = self.unfit[key]
        else:
            parent = self.live.pop(key)
            answer = parent.answer(req, died)
            if not parent.ended:
                self.live[key] = parent  # now the most recently used
        if started is not None and "step_seconds" in answer:
            answer["step_seconds"].insert(0, started)
        return answer

    def _keep(self, key: tuple, parent: WarmParent) -> None:
        self.live[key] = parent
        while len(self.live) > MAX_WARM_PARENTS:
            oldest = next(iter(self.live))
            self.live.pop(oldest).end()

    def close(self) -> None:
        while self.live:
            self.live.popitem()[1].end()


WARM_PARENTS = WarmParents()
