"""The worker's one tensor wire (worker/TENSORS.md, "Tensor frames"), for every op and every kind.

A message is one strict JSON line, then `frames` binary frames (the line's top-level "frames" gives their
count; absent: none). A tensor in the line is a reference `{"name": ..., "frame": k}` to the k-th frame; a
frame is, little-endian: b"NNXF", the dtype code (ONNX's TensorProto.DataType number), the rank, two zero
bytes, the byte count (u64), the sizes (i64 each), then the raw row-major bytes. The same messages go
core -> worker (requests on stdin), worker -> core (answers on fd 3) and forked child -> worker (its answer
pipe). A frame header is checked before its bytes are read: a known dtype, rank <= 64, the byte count the
dtype and sizes give, at most 64 MiB per frame and 2 GiB per message (src/worker/tensor_frames.h holds the
same rules for the core). torch is imported only by `from_torch` and `to_torch`.
"""

from __future__ import annotations

import json
import os
import struct
import sys

MAGIC = b"NNXF"
FIXED = struct.Struct("<4sBBHQ")  # magic, dtype code, rank, zero, byte count
# name -> (ONNX TensorProto.DataType code, bytes per element)
DTYPES = {"float32": (1, 4), "float64": (11, 8), "float16": (10, 2), "bfloat16": (16, 2), "int64": (7, 8),
          "int32": (6, 4), "int8": (3, 1), "uint8": (2, 1), "bool": (9, 1)}
BY_CODE = {code: name for name, (code, _) in DTYPES.items()}
MAX_FRAME_BYTES = 64 << 20  # doc/record-format.md §10: 64 MiB per stored tensor
MAX_MESSAGE_BYTES = 2 << 30
MAX_FRAMES = 1 << 16
MAX_RANK = 64

assert sys.byteorder == "little", "the wire carries little-endian bytes"


class WireError(ValueError):
    """A message or frame that does not follow the wire's rules; str(exc) says which rule."""


class WireTensor:
    """A named tensor on the wire: its dtype name, shape and raw bytes (any bytes-like object)."""

    __slots__ = ("name", "dtype", "shape", "data")

    def __init__(self, name: str, dtype: str, shape: list, data):
        self.name, self.dtype, self.shape, self.data = name, dtype, list(shape), data

    def __eq__(self, other) -> bool:
        return isinstance(other, WireTensor) and (self.name, self.dtype, self.shape) == \
            (other.name, other.dtype, other.shape) and bytes(self.data) == bytes(other.data)

    __hash__ = None

    def nbytes(self) -> int:
        return memoryview(self.data).nbytes


def _torch_dtypes():
    import torch

    return {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
            "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "int8": torch.int8,
            "uint8": torch.uint8, "bool": torch.bool}


def from_torch(name: str, tensor) -> WireTensor:
    """A torch tensor on the wire (its CPU bytes); WireError for a dtype the wire has no name for or a
    tensor over MAX_FRAME_BYTES."""
    names = {v: k for k, v in _torch_dtypes().items()}
    if tensor.dtype not in names:
        way_out = "; return torch.view_as_real(z) instead (its real and imaginary parts as a last axis of 2)" \
            if tensor.is_complex() else ""
        raise WireError(f"is {tensor.dtype}, which the wire cannot carry ({', '.join(DTYPES)}){way_out}")
    size = tensor.numel() * tensor.element_size()
    if size > MAX_FRAME_BYTES:
        raise WireError(f"is {size} bytes raw, over the limit of {MAX_FRAME_BYTES} bytes (64 MiB) per tensor")
    import torch

    flat = tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy()
    return WireTensor(name, names[tensor.dtype], list(tensor.shape), flat.data)


def to_torch(wire: WireTensor):
    """The torch tensor of a wire tensor, in its own memory."""
    import torch

    dtype = _torch_dtypes()[wire.dtype]
    if wire.nbytes() == 0:
        return torch.empty(wire.shape, dtype=dtype)
    return torch.frombuffer(bytearray(wire.data), dtype=dtype).reshape(wire.shape)


# --------------------------------------------------------------------------------------------
# messages


def _lift(value, frames: list):
    if isinstance(value, WireTensor):
        frames.append(value)
        return {"name": value.name, "frame": len(frames) - 1}
    if isinstance(value, dict):
        return {key: _lift(item, frames) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lift(item, frames) for item in value]
    return value


def encode_message(message: dict) -> tuple:
    """(the JSON line, bytes, newline-terminated; its frames): strict JSON, UTF-8; a message that cannot be
    written so (NaN, an object json cannot write, nesting too deep) becomes an internal-error answer."""
    frames: list = []
    try:
        lifted = _lift(message, frames)
        if frames:
            lifted["frames"] = len(frames)
        text = json.dumps(lifted, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:  # never send non-strict JSON
        frames = []
        text = json.dumps({"ok": False, "error": f"internal error: unserialisable response: "
                                                 f"{type(exc).__name__}: {exc}"})
    return (text + "\n").encode("utf-8", errors="replace"), frames  # a lone surrogate becomes "?"


def _write_all(fd: int, data) -> None:
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def write_message(fd: int, message: dict) -> None:
    """The message's line, then each of its tensors as a frame, written to `fd`."""
    line, frames = encode_message(message)
    _write_all(fd, line)
    for t in frames:
        code = DTYPES[t.dtype][0]
        header = FIXED.pack(MAGIC, code, len(t.shape), 0, t.nbytes()) + struct.pack(f"<{len(t.shape)}q", *t.shape)
        _write_all(fd, header)
        _write_all(fd, t.data)


def _read_exactly(stream, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) != size:
        raise WireError(f"the stream ended inside a frame ({0 if data is None else len(data)} of {size} bytes)")
    return data


def read_frame(stream, budget: int) -> WireTensor:
    """One frame from `stream`, its header checked before its bytes are read (at most `budget` bytes)."""
    magic, code, rank, zero, size = FIXED.unpack(_read_exactly(stream, FIXED.size))
    if magic != MAGIC or zero != 0:
        raise WireError("no frame header (b'NNXF', dtype, rank, 0)")
    if code not in BY_CODE:
        raise WireError(f"unknown dtype code {code}")
    if rank > MAX_RANK:
        raise WireError(f"rank {rank} over {MAX_RANK}")
    shape = list(struct.unpack(f"<{rank}q", _read_exactly(stream, 8 * rank)))
    dtype = BY_CODE[code]
    count = 1
    for n in shape:
        if n < 0:
            raise WireError(f"a size is negative ({n})")
        count *= n
    if size != count * DTYPES[dtype][1]:
        raise WireError(f"{size} bytes for {count} {dtype} values")
    if size > min(MAX_FRAME_BYTES, budget):
        raise WireError(f"a {dtype} frame of {size} bytes, over the limit")
    return WireTensor("", dtype, shape, _read_exactly(stream, size))


def _resolve(value, frames: list):
    if isinstance(value, dict):
        if value.keys() == {"name", "frame"} and isinstance(value["frame"], int) \
                and not isinstance(value["frame"], bool) and isinstance(value["name"], str):
            k = value["frame"]
            if not 0 <= k < len(frames) or frames[k] is None:
                raise WireError(f"tensor {value['name']!r} names frame {k}, not one of the {len(frames)} sent "
                                f"or named once")
            tensor, frames[k] = frames[k], None
            tensor.name = value["name"]
            return tensor
        return {key: _resolve(item, frames) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, frames) for item in value]
    return value


def read_frames(message: dict, stream) -> dict:
    """The message with the frames its "frames" announces read from `stream` and put in place of their
    references (WireTensor objects); WireError when a frame breaks a rule."""
    count = message.pop("frames", 0)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_FRAMES:
        raise WireError(f"'frames' must be a count of tensor frames (0 to {MAX_FRAMES})")
    frames, budget = [], MAX_MESSAGE_BYTES
    for _ in range(count):
        frames.append(read_frame(stream, budget))
        budget -= frames[-1].nbytes()
    return _resolve(message, frames) if count else message


def read_message(stream):
    """The next message of `stream` (its line and frames), None at its end; WireError for a line that is not
    a JSON object or a frame that breaks a rule."""
    line = stream.readline()
    if not line:
        return None
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("not a JSON object")
    return read_frames(message, stream)
