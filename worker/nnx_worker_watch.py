"""Watching an export (worker/PROTOCOL.md, `export` and `module_export`): the state snapshot taken before
and after it, the capture of file descriptors 1 and 2, the recorded warnings, and the file it wrote.

Shared by the feed-forward export (worker/nnx_worker.py) and the module export
(worker/nnx_worker_module.py). Only the standard library is imported at module level.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import warnings

from nnx_worker_model import describe

LOG_LINES = 5  # the export detail's log: the last 5 lines of captured stdout (record-format §4)
WARNING_CHARS = 200  # a warning's first line is cut here (record-format §4)
STATE_PARTS = ("parameters", "gradients", "modes")


def snapshot(model) -> dict:
    """Raw bytes of every parameter ("param:<name>") and buffer ("buffer:<name>") under "parameters",
    every gradient (or None) under "gradients", the (module name, training) list under "modes"."""
    import torch

    def raw(t):  # the bytes of any dtype, bfloat16 included (numpy has no bfloat16)
        t = t.detach().cpu().contiguous()
        return (str(t.dtype), tuple(t.shape), t.reshape(-1).view(torch.uint8).numpy().tobytes())

    values = {f"param:{n}": raw(p) for n, p in model.named_parameters()}
    values.update({f"buffer:{n}": raw(b) for n, b in model.named_buffers()})
    grads = {n: None if p.grad is None else raw(p.grad) for n, p in model.named_parameters()}
    modes = [(n, m.training) for n, m in model.named_modules()]
    return {"parameters": values, "gradients": grads, "modes": modes}


def changed_parts(before: dict, after: dict) -> list:
    """The sorted names among parameters, gradients, modes whose snapshot differs."""
    return sorted(part for part in STATE_PARTS if before[part] != after[part])


def changed_entries(before: dict, after: dict) -> list:
    """Each entry that differs: "param:<name>", "buffer:<name>", "grad:<name>", "mode:<module name>"
    (the root module is "mode:" with an empty name), sorted."""
    found = set()
    for key in before["parameters"].keys() | after["parameters"].keys():
        if before["parameters"].get(key) != after["parameters"].get(key):
            found.add(key)
    for key in before["gradients"].keys() | after["gradients"].keys():
        if before["gradients"].get(key) != after["gradients"].get(key):
            found.add(f"grad:{key}")
    modes_before, modes_after = dict(before["modes"]), dict(after["modes"])
    for key in modes_before.keys() | modes_after.keys():
        if modes_before.get(key) != modes_after.get(key):
            found.add(f"mode:{key}")
    return sorted(found)


@contextlib.contextmanager
def capture_fds():
    """Redirects file descriptors 1 and 2 (C level included) to temp files; yields a box whose "text" is
    the captured stdout afterwards. The captured stderr is passed on to the real fd 2 (the core's log)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as out_sink, tempfile.TemporaryFile() as err_sink:
        os.dup2(out_sink.fileno(), 1)
        os.dup2(err_sink.fileno(), 2)
        box = {"text": ""}
        try:
            yield box
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            box["text"] = tail(out_sink)
            text = tail(err_sink)
            if text:
                sys.stderr.write(text)
                sys.stderr.flush()


def tail(sink) -> str:
    """The last 256 KiB of an open binary file, as text."""
    size = sink.seek(0, os.SEEK_END)
    sink.seek(max(0, size - (256 << 10)))
    return sink.read().decode("utf-8", errors="replace")


def last_lines(text: str, count: int = LOG_LINES) -> str:
    return "\n".join(text.splitlines()[-count:])


def warning_text(w, whole: bool = False) -> str:
    """`<Class>: <first line>` cut at WARNING_CHARS (record-format §4), or with `whole` (a module export,
    record-format §10) `<Class>: <message> (<file>:<line>)`, the message whole and where it was raised."""
    if whole:
        return f"{w.category.__name__}: {str(w.message).rstrip()} ({w.filename}:{w.lineno})"
    lines = str(w.message).splitlines()
    return f"{w.category.__name__}: {lines[0][:WARNING_CHARS] if lines else ''}".rstrip()


def list_files(root: str) -> list:
    found = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return sorted(found)


def stat_key(path: str):
    try:
        st = os.stat(path, follow_symlinks=False)
        return (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def export_in_eval(model, call) -> None:
    """Runs `call()` (the exporter) with `model` in eval mode and leaves the model as it found it: every
    module's OWN training flag (the legacy exporter restores only the top-level flag, to every module, which
    would break a mixed mode) and every gradient tensor. Parameter and buffer values are not restored: an
    exporter that changes them must show up as a changed state, not be hidden."""
    modes = [(m, m.training) for m in model.modules()]
    grads = [(p, p.grad) for p in model.parameters()]
    try:
        model.eval()
        call()
    finally:
        for module, training in modes:
            module.training = training
        for param, grad in grads:
            if param.grad is not grad:
                param.grad = grad


def watch_export(model, path: str, export, whole_warnings: bool = False) -> dict:
    """Runs `export()` (which writes `path`) once, watching it: every Python warning is recorded (whole, with
    its file and line, under `whole_warnings`: warning_text) and fds 1
    and 2 are captured; `model` is snapshotted before and after. Returns exception ("<ExcType>: <message>"
    or None), log, warnings, before, after and wrote_model (a regular file created or replaced at `path`)."""
    before = snapshot(model)
    old_stat = stat_key(path)
    exception = None
    with warnings.catch_warnings(record=True) as caught, capture_fds() as log:
        warnings.simplefilter("always")
        try:
            export()
        except Exception as exc:  # noqa: BLE001 - the exporter raising is an outcome, not a worker error
            exception = describe(exc)
    new_stat = stat_key(path)
    return {
        "exception": exception,
        "log": last_lines(log["text"]),
        "warnings": sorted({warning_text(w, whole_warnings) for w in caught}),
        "before": before,
        "after": snapshot(model),
        "wrote_model": os.path.isfile(path) and not os.path.islink(path) and new_stat != old_stat,
    }
