"""The Python side of fuzz/worker_request_fuzzer.cc: the worker's request loop (worker/nnx_worker.py,
`answers` and `handle`) on any bytes, without running exports.

torch, numpy, onnx, onnxscript and onnxruntime are made unimportable first, so an op that passes its
request's validation stops where it would import them (a `ok: false` answer); `dependencies` and the module
ops are replaced by their request parsers (the real ops import the modules a request names, or fork).
`one(data)` feeds the bytes to the loop as its stdin and checks every answer: one per request line the loop
read (the bytes a line's "frames" announces are its tensor frames, worker/nnx_worker_tensors.py, not request
lines); an AssertionError or any other exception is a finding.
"""

from __future__ import annotations

import io
import json
import os
import sys

for _heavy in ("torch", "numpy", "onnx", "onnxscript", "onnxruntime"):
    sys.modules[_heavy] = None  # `import torch` raises ImportError

import nnx_worker  # noqa: E402  (worker/ is on PYTHONPATH: scripts/run_fuzzers.sh)
import nnx_worker_dependencies  # noqa: E402
import nnx_worker_module  # noqa: E402
from python_coverage import LineEdges  # noqa: E402


def _validated(parse):
    def op(req):
        parse(req)
        return {"ok": True}
    return op


OPS = {**nnx_worker.OPS,
       "dependencies": _validated(nnx_worker_dependencies.parse_dependencies_request),
       "module_export": _validated(lambda req: nnx_worker_module.parse_module_request(req, "module_export")),
       "module_reference": _validated(lambda req: nnx_worker_module.parse_module_request(req, "module_reference"))}
sys.stderr = open(os.devnull, "w")  # the tracebacks handle() prints for an op that raised (the worker's log)
TRACER = LineEdges((os.path.dirname(os.path.abspath(nnx_worker.__file__)) + os.sep,))


def _refuse_constant(name):
    raise AssertionError(f"an answer holds {name}: not strict JSON")


class _Lines(io.BytesIO):
    """The loop's stdin, counting the request lines it reads (its frames are read with read())."""

    requests = 0

    def readline(self, *args):
        line = super().readline(*args)
        self.requests += bool(line.strip())
        return line


def _serve(data: bytes) -> None:
    stream = _Lines(data)
    served = 0
    for response in nnx_worker.answers(stream, OPS):
        served += 1
        line = nnx_worker.response_line(response)
        assert line.endswith(b"\n") and line.count(b"\n") == 1, "an answer is not one line"
        answer = json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
        assert isinstance(answer, dict) and isinstance(answer.get("ok"), bool), "an answer has no boolean ok"
        if answer["ok"] is False:
            assert isinstance(answer.get("error"), str) and answer["error"], "a refusal does not say why"
    assert served == stream.requests, f"{stream.requests} request lines, {served} answers"


def one(data: bytes) -> list:
    """Serves `data`; returns the Python line edges it reached (for libFuzzer's extra counters)."""
    return TRACER.run(_serve, data)[1]
