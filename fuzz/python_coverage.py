"""Line coverage of chosen Python files for a libFuzzer target that embeds Python (fuzz/*_fuzzer.cc): the
interpreter's code is not instrumented, so the target feeds libFuzzer the (file, line, previous line) edges
this tracer saw while one input ran (as libFuzzer's extra counters), and libFuzzer keeps the inputs that
reach new Python lines, not only new C++ edges."""

from __future__ import annotations

import sys


class LineEdges:
    """A tracer of the files whose path starts with one of `prefixes`; `run(fn, *args)` returns fn's result
    and the edges as small ints (hashes), deduplicated."""

    def __init__(self, prefixes: tuple[str, ...]) -> None:
        self.prefixes = prefixes
        self.edges: set[int] = set()
        self.last = 0

    def _line(self, frame, event, arg):
        if event == "line":
            here = hash((frame.f_code.co_filename, frame.f_lineno))
            self.edges.add((here ^ (self.last * 31)) & 0xFFFF)
            self.last = here
        return self._line

    def _call(self, frame, event, arg):
        return self._line if frame.f_code.co_filename.startswith(self.prefixes) else None

    def run(self, fn, *args):
        self.edges = set()
        self.last = 0
        sys.settrace(self._call)
        try:
            return fn(*args), list(self.edges)
        finally:
            sys.settrace(None)
