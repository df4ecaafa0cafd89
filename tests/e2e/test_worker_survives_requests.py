"""The real worker (worker/nnx_worker.py) survives any request line: a line nested deeper than Python's
stack, an `op` that is not a string, bytes that are not UTF-8 or a request whose answer cannot be written
each get one ok:false answer, and the worker serves the next request. `check` reads only a regular file of
at most protobuf's 2 GiB (worker/PROTOCOL.md, `check`): /dev/zero, a FIFO, a folder or a larger file is
refused at once instead of being read without end.
"""
from __future__ import annotations

import json
import os
import time

import pytest

from worker_support import Worker

ANSWER_SECONDS = 30  # every answer here needs neither torch nor onnx: a few milliseconds


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    assert w.close() == 0, "the worker exits with status 0 when its stdin closes"


def answer_to_line(worker: Worker, line: bytes) -> dict:
    worker.proc.stdin.write(line + b"\n")
    worker.proc.stdin.flush()
    answer = worker.read_line(ANSWER_SECONDS)
    assert answer, f"no answer; the worker's log:\n{worker.log_text()[-3000:]}"
    return json.loads(answer)


def assert_still_serving(worker: Worker) -> None:
    assert worker.proc.poll() is None, f"the worker exited; its log:\n{worker.log_text()[-3000:]}"
    assert worker.request({"op": "ping"}, timeout=ANSWER_SECONDS) == {"ok": True}


@pytest.mark.parametrize("line", [b"[" * 200_000, b'{"op": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                                  b'{"a": ' * 3000 + b"1" + b"}" * 3000],
                         ids=["open-brackets", "nested-op", "nested-objects"])
def test_a_line_nested_deeper_than_the_stack_is_answered_not_json(worker, line):
    answer = answer_to_line(worker, line)
    assert answer["ok"] is False and answer["error"].startswith("request is not JSON: RecursionError")
    assert_still_serving(worker)


@pytest.mark.parametrize("op, named", [([], "of type list"), ({"x": 1}, "of type dict"), (None, "of type NoneType"),
                                       (7, "of type int"), ("frobnicate", "'frobnicate'")])
def test_an_op_that_is_not_a_known_name_is_answered_unknown_op(worker, op, named):
    answer = worker.request({"op": op}, timeout=ANSWER_SECONDS)
    assert answer == {"ok": False, "error": f"unknown op {named} (a string, one of: check, dependencies, export, "
                                            "graph_intermediates, module_export, module_intermediates, module_reference, "
                                            "ping, reference, reference_intermediates)"}
    assert_still_serving(worker)


@pytest.mark.parametrize("line", [b"\xff\xfe{not utf-8", b"\x00", b"[1, 2]", b'"op"', b"NaN"])
def test_bytes_that_are_no_request_object_are_answered(worker, line):
    answer = answer_to_line(worker, line)
    assert answer["ok"] is False
    assert answer["error"].startswith(("request is not JSON", "request must be a JSON object"))
    assert_still_serving(worker)


def test_a_request_nested_deeply_inside_an_op_is_answered(worker):
    """The export op's own validation meets an activation nested 900 levels deep (as deep as json reads):
    it is refused by name, and the next request is served."""
    model = {"net": "feed_fwd", "hidden_dims": [1], "input_dim": 1, "output_dim": 1, "dropout": 0.0}
    inner = model
    for _ in range(900):
        inner["activation"] = {}
        inner = inner["activation"]
    request = {"op": "export", "exporter": "torchscript", "model": model, "output_dir": "/nonexistent",
               "options": {"exporter": "torchscript", "dynamo": False, "opset_version": 17, "export_batch": 1,
                           "dynamic_batch": False, "input_names": ["x"], "output_names": ["y"]}}
    answer = answer_to_line(worker, json.dumps(request).encode())
    assert answer["ok"] is False and answer["error"].startswith("export: unknown activation {'activation': {")
    assert_still_serving(worker)


def timed_check(worker: Worker, path) -> tuple[dict, float]:
    started = time.monotonic()
    answer = worker.request({"op": "check", "path": str(path)}, timeout=ANSWER_SECONDS)
    return answer, time.monotonic() - started


def assert_refused_unread(answer: dict, elapsed: float, why: str) -> None:
    assert answer["ok"] is True and why in answer["error"], answer
    assert all(answer[k] is None for k in ("opset", "ir_version", "producer", "inputs", "outputs", "external_data"))
    assert elapsed < 5, "refused before anything is read"


def test_check_of_dev_zero_is_refused_at_once(worker):
    answer, elapsed = timed_check(worker, "/dev/zero")
    assert_refused_unread(answer, elapsed, "the model /dev/zero is not a regular file")
    assert_still_serving(worker)


def test_check_of_a_fifo_and_a_folder_is_refused_without_opening_them(worker, tmp_path):
    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    for path in (fifo, tmp_path):
        answer, elapsed = timed_check(worker, path)
        assert_refused_unread(answer, elapsed, f"the model {path} is not a regular file")
    assert_still_serving(worker)


def test_check_of_a_file_over_two_gib_is_refused_unread(worker, tmp_path):
    big = tmp_path / "model.onnx"
    with open(big, "wb") as f:
        f.truncate(2**31)  # sparse: one byte over protobuf's limit, no disk used
    answer, elapsed = timed_check(worker, big)
    assert_refused_unread(answer, elapsed, f"is {2**31} bytes, more than protobuf's 2 GiB limit")
    assert_still_serving(worker)


def test_check_of_a_path_with_nul_is_a_protocol_error(worker):
    answer = worker.request({"op": "check", "path": "/tmp/model\u0000.onnx"}, timeout=ANSWER_SECONDS)
    assert answer == {"ok": False, "error": "check: 'path' must be an absolute path (without NUL)"}
    assert_still_serving(worker)
