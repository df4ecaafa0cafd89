"""A module export's case tensors as the files they are stored in (worker/TENSORS.md, "Case tensors as
files"; doc/record-format.md §10): ONNX TensorProto files in the profile folder, in ONNX's test-data layout.
The core writes each case's inputs there before it sends `module_export`; the forked child reads them one
case at a time and writes each case's reference and float64 oracle outputs beside them as it computes them.
So no process holds more than one case's tensors, whatever the number of cases (the answer line names the
files; the tensors never cross a pipe).

A file holds exactly the fields the core writes (src/onnx_file/tensor_proto.h, encode_tensor_proto), in
field order: dims (1, one varint each), data_type (2), name (8), raw_data (9); `write_tensor_file` writes the
same bytes the core's protobuf serialiser would. Written by hand rather than with onnx's TensorProto because
its serialiser holds the tensor twice more (numpy_helper.from_array copies the data into the message, and
SerializeToString copies the message): 128 MiB more at the 64 MiB limit per tensor. `read_header` checks
a file before its data is read (the fields above and no other, a known dtype, the byte count its dims and
dtype give, at most 64 MiB); `load` reads the data once into the torch tensor's own memory.
"""

from __future__ import annotations

import os

from nnx_worker_tensors import BY_CODE, DTYPES, MAX_FRAME_BYTES, WireError, from_torch

_DIMS, _DATA_TYPE, _NAME, _RAW = 1, 2, 8, 9
_MAX_RANK = 64
_MAX_HEADER_BYTES = 1 << 16  # every field but raw_data: the rank and the name are bounded


class FileTensor:
    """A stored tensor file whose header was read: its name, dtype, shape, path and where its data lies."""

    __slots__ = ("name", "dtype", "shape", "path", "offset", "nbytes")

    def __init__(self, name: str, dtype: str, shape: list, path: str, offset: int, nbytes: int):
        self.name, self.dtype, self.shape = name, dtype, list(shape)
        self.path, self.offset, self.nbytes = path, offset, nbytes


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(f, where: str) -> int:
    value = shift = 0
    while True:
        byte = f.read(1)
        if not byte:
            raise WireError(f"{where}: the file ends inside a field")
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
        shift += 7
        if shift > 63:
            raise WireError(f"{where}: a varint longer than 10 bytes")


def _length(f, where: str, size: int) -> int:
    n = _read_varint(f, where)
    if f.tell() + n > size:
        raise WireError(f"{where}: a field of {n} bytes runs past the file's end")
    return n


def read_header(path: str) -> FileTensor:
    """The header of the TensorProto file at `path`, its data not read; WireError naming the rule it breaks."""
    where = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
    with open(path, "rb") as f:
        return parse_header(f, os.fstat(f.fileno()).st_size, where, path)


def parse_header(f, size: int, where: str, path: str = "") -> FileTensor:
    """The header of the TensorProto of `size` bytes in the seekable binary stream `f` (read_header's rules;
    the data skipped, not read); `where` names it in a WireError."""
    dims, code, name, raw = [], None, "", None
    while f.tell() < size:
        key = _read_varint(f, where)
        field, kind = key >> 3, key & 7
        if field == _DIMS and kind == 0:
            dims.append(_read_varint(f, where))
        elif field == _DIMS and kind == 2:  # packed, as another writer may store them
            n = _length(f, where, size)
            end = f.tell() + n
            while f.tell() < end:
                dims.append(_read_varint(f, where))
        elif field == _DATA_TYPE and kind == 0:
            code = _read_varint(f, where)
        elif field == _NAME and kind == 2:
            n = _length(f, where, size)
            if n > _MAX_HEADER_BYTES:
                raise WireError(f"{where}: a name of {n} bytes")
            name = f.read(n).decode("utf-8", errors="replace")
        elif field == _RAW and kind == 2:
            n = _length(f, where, size)
            raw = (f.tell(), n)
            f.seek(n, os.SEEK_CUR)
        else:
            raise WireError(f"{where}: field {field} (wire type {kind}) is not one a stored tensor holds "
                            f"(dims, data_type, name, raw_data)")
        if len(dims) > _MAX_RANK:
            raise WireError(f"{where}: rank over {_MAX_RANK}")
    if code not in BY_CODE:
        raise WireError(f"{where}: data_type {code} is not one of the wire's ({', '.join(DTYPES)})")
    if raw is None:
        raise WireError(f"{where}: no raw_data")
    dtype, count = BY_CODE[code], 1
    for n in dims:
        count *= n
    if raw[1] != count * DTYPES[dtype][1] or raw[1] > MAX_FRAME_BYTES:
        raise WireError(f"{where}: {raw[1]} bytes of raw_data for {dtype} {dims} (at most {MAX_FRAME_BYTES})")
    return FileTensor(name, dtype, dims, path, raw[0], raw[1])


def load(tensor: FileTensor):
    """The torch tensor of a stored tensor file, read once into its own memory."""
    import torch

    from nnx_worker_tensors import _torch_dtypes

    dtype = _torch_dtypes()[tensor.dtype]
    if tensor.nbytes == 0:
        return torch.empty(tensor.shape, dtype=dtype)
    data = bytearray(tensor.nbytes)
    with open(tensor.path, "rb") as f:
        f.seek(tensor.offset)
        if f.readinto(data) != tensor.nbytes:
            raise WireError(f"{tensor.path}: shorter than its header says")
    return torch.frombuffer(data, dtype=dtype).reshape(tensor.shape)


def write_tensor_file(folder: str, relative: str, name: str, tensor) -> dict:
    """Writes `tensor` (torch) named `name` at <folder>/<relative> as the core would (atomically: a temporary
    file beside it, then renamed; removed when the write fails) and returns its entry for the answer: {name, dtype, shape, file}. WireError
    for a dtype the wire has no name for or a tensor over 64 MiB (nnx_worker_tensors.from_torch)."""
    wire = from_torch(name, tensor)
    encoded = name.encode("utf-8")
    header = b"".join(_varint(_DIMS << 3) + _varint(n) for n in wire.shape)
    header += _varint(_DATA_TYPE << 3) + _varint(DTYPES[wire.dtype][0])
    header += _varint(_NAME << 3 | 2) + _varint(len(encoded)) + encoded
    header += _varint(_RAW << 3 | 2) + _varint(wire.nbytes())
    path = os.path.join(folder, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as f:
            f.write(header)
            f.write(wire.data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):  # a write that failed part way (a full disk) leaves nothing behind
            os.unlink(temporary)
        raise
    return {"name": name, "dtype": wire.dtype, "shape": wire.shape, "file": relative}
