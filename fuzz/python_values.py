"""The Python side of fuzz/python_json_fuzzer.cc: Python values built from fuzz bytes, and what the path the
core's Python-object reader must agree with makes of them (nnx._boundary._dumps: the strict JSON text, or
a refusal).

`build(data)` reads the bytes as a small program: each value starts with a byte choosing None, True, False,
an int (small, 64-bit or up to 136 bits, either sign), a float from 8 raw bytes (NaN and infinities too), a
str from bytes (lone surrogates from undecodable bytes), a list, a tuple, a dict (keys of every hashable
kind json.dumps meets: str, int, float, bool, None, tuple), a custom Mapping, a custom Sequence, bytes, a
set, or a container built earlier (so cycles occur). Containers nest up to 140 levels (the reader refuses
129).
"""

from __future__ import annotations

import os
import struct
import sys
import types
from collections.abc import Mapping, Sequence

_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python", "nnx")
if "nnx" not in sys.modules:  # nnx._boundary and nnx._errors only (nnx/__init__ imports the built core)
    _nnx = types.ModuleType("nnx")
    _nnx.__path__ = [os.path.normpath(_PACKAGE)]
    sys.modules["nnx"] = _nnx
from nnx._boundary import _dumps  # noqa: E402
from nnx._errors import ConformanceError  # noqa: E402

MAX_DEPTH = 140


class FuzzMapping(Mapping):
    def __init__(self, items: dict) -> None:
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class FuzzSequence(Sequence):
    def __init__(self, items: list) -> None:
        self._items = items

    def __getitem__(self, index):
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at, self.built = data, 0, []

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def take(self, n: int) -> bytes:
        self.at += n
        return self.data[self.at - n:self.at]

    def scalar(self, kind: int):
        if kind < 3:
            return (None, True, False)[kind]
        if kind == 3:
            return self.byte() - 128
        if kind == 4:
            return int.from_bytes(self.take(8), "little", signed=True)
        if kind == 5:
            n = int.from_bytes(self.take(self.byte() % 18), "little")
            return -n if self.byte() & 1 else n
        if kind == 6:
            return struct.unpack("<d", self.take(8).ljust(8, b"\0"))[0]
        return self.take(self.byte() % 24).decode("utf-8", "surrogateescape")

    def key(self):
        kind = self.byte() % 9
        return (self.byte(), "k") if kind == 8 else self.scalar(kind)

    def value(self, depth: int):
        kind = self.byte() % 16
        if kind <= 7 or depth >= MAX_DEPTH:
            return self.scalar(kind % 8)
        if kind == 13:
            return self.take(self.byte() % 4)
        if kind == 14:
            return {self.byte()}
        if kind == 15:
            return self.built[self.byte() % len(self.built)] if self.built else None
        count = self.byte() % 5
        if kind in (10, 11):
            plain = {}
            self.built.append(plain if kind == 10 else FuzzMapping(plain))
            for _ in range(count):
                key = self.key()  # read before its value (an assignment evaluates its right side first)
                plain[key] = self.value(depth + 1)
            return self.built[-1]
        items = []
        self.built.append(items if kind == 8 else FuzzSequence(items))
        items.extend(self.value(depth + 1) for _ in range(count))
        return tuple(items) if kind == 9 else self.built[-1]


def build(data: bytes):
    return _Reader(data).value(0)


def dumps_or_none(value):
    """The strict JSON text nnx._boundary._dumps makes of `value`, or None when it refuses."""
    try:
        return _dumps(value, "fuzz value")
    except ConformanceError:
        return None
