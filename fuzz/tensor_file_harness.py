"""The Python side of fuzz/tensor_file_fuzzer.cc: the header reader of a module export's stored tensor files
(worker/nnx_worker_tensor_files.py, `parse_header`: worker/TENSORS.md, "Case tensors as files") on any bytes,
as the worker reads the case input files a request names before the forked child reads their data.

`one(data)` parses the bytes as a file's; the reader either refuses them with WireError or returns a header
that keeps its promises: a dtype of the wire's, its data inside the file, its byte count the dims and dtype
give and at most 64 MiB. Any other exception, or a broken promise (AssertionError), is a finding.
"""

from __future__ import annotations

import io
import os

import nnx_worker_tensor_files as files  # noqa: E402  (worker/ is on PYTHONPATH: scripts/run_fuzzers.sh)
from nnx_worker_tensors import DTYPES, MAX_FRAME_BYTES, WireError
from python_coverage import LineEdges

TRACER = LineEdges((os.path.abspath(files.__file__),))


def _parse(data: bytes) -> None:
    try:
        header = files.parse_header(io.BytesIO(data), len(data), "fuzz.pb")
    except WireError as exc:
        assert str(exc).startswith("fuzz.pb: "), "a refusal does not name the file"
        return
    assert header.dtype in DTYPES, "an unknown dtype"
    count = 1
    for n in header.shape:
        assert n >= 0, "a negative size"
        count *= n
    assert header.nbytes == count * DTYPES[header.dtype][1] <= MAX_FRAME_BYTES, "a byte count the dims do not give"
    assert 0 <= header.offset and header.offset + header.nbytes <= len(data), "data outside the file"


def one(data: bytes) -> list:
    """Parses `data`; returns the Python line edges it reached (for libFuzzer's extra counters)."""
    return TRACER.run(_parse, data)[1]
