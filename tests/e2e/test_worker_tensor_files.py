"""A module export's case tensors as files (worker/TENSORS.md, "Case tensors as files";
worker/nnx_worker_tensor_files.py): the forked child writes each stored output as the bytes onnx's own
serialiser writes (so the core, which writes its inputs with protobuf, and any ONNX tool read them alike), reads
the files the core writes and those onnx writes, and refuses a file that breaks a rule from its header, before
its data is read. Real onnx and torch on both sides; the end-to-end runs are in test_worker_module.py,
test_worker_channel.py and bench/limits_memory.py (a model at the documented limits)."""
from __future__ import annotations

import sys

import pytest
import torch
from onnx import TensorProto, numpy_helper

from conftest import REPO

sys.path.insert(0, str(REPO / "worker"))
from nnx_worker_tensor_files import load, read_header, write_tensor_file  # noqa: E402
from nnx_worker_tensors import WireError  # noqa: E402

TENSORS = {
    "float32": torch.randn(2, 3, generator=torch.Generator().manual_seed(0)),
    "float64": torch.randn(4, generator=torch.Generator().manual_seed(1)).double(),
    "float16": torch.randn(3, 2, generator=torch.Generator().manual_seed(2)).half(),
    "int64": torch.tensor([[1, -2, 3 << 40]]),
    "int32": torch.tensor([7, -8], dtype=torch.int32),
    "int8": torch.tensor([-128, 127], dtype=torch.int8),
    "uint8": torch.tensor([0, 255], dtype=torch.uint8),
    "bool": torch.tensor([True, False, True]),
    "scalar": torch.tensor(2.5),
    "empty": torch.zeros(0, 3),
}


@pytest.mark.parametrize("kind", sorted(TENSORS))
def test_a_written_tensor_is_the_bytes_onnx_writes_and_reads_back_bit_for_bit(tmp_path, kind):
    tensor = TENSORS[kind]
    entry = write_tensor_file(str(tmp_path), "test_data_set_0/output_0.pb", "y", tensor)
    written = (tmp_path / "test_data_set_0" / "output_0.pb").read_bytes()
    assert written == numpy_helper.from_array(tensor.numpy(), "y").SerializeToString()
    assert entry == {"name": "y", "dtype": {"scalar": "float32", "empty": "float32"}.get(kind, kind),
                     "shape": list(tensor.shape), "file": "test_data_set_0/output_0.pb"}
    header = read_header(str(tmp_path / "test_data_set_0" / "output_0.pb"))
    assert (header.name, header.dtype, header.shape) == ("y", entry["dtype"], list(tensor.shape))
    assert torch.equal(load(header), tensor)
    assert not list(tmp_path.rglob("*.tmp"))  # written beside, then renamed


def test_bfloat16_is_written_as_onnx_stores_it_and_read_back(tmp_path):
    tensor = torch.randn(5, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    write_tensor_file(str(tmp_path), "a/b.pb", "z", tensor)
    proto = TensorProto()
    proto.ParseFromString((tmp_path / "a" / "b.pb").read_bytes())
    assert proto.data_type == TensorProto.BFLOAT16 and list(proto.dims) == [5]
    assert proto.raw_data == tensor.view(torch.int16).numpy().tobytes()
    assert torch.equal(load(read_header(str(tmp_path / "a" / "b.pb"))), tensor)


def test_packed_dims_another_writer_may_use_are_read(tmp_path):
    values = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    raw = values.numpy().tobytes()
    # dims packed (field 1, wire type 2: two varints), data_type, raw_data: a valid TensorProto.
    packed = bytes([0x0A, 2, 2, 3, 0x10, 1, 0x4A, len(raw)]) + raw
    (tmp_path / "p.pb").write_bytes(packed)
    assert TensorProto.FromString(packed).dims == [2, 3]  # onnx reads it too
    header = read_header(str(tmp_path / "p.pb"))
    assert (header.name, header.shape) == ("", [2, 3]) and torch.equal(load(header), values)


HOSTILE = {
    "a field a stored tensor does not hold": (bytes([0x20, 1]), "field 4 (wire type 0) is not one"),
    "no raw_data": (bytes([0x08, 2, 0x10, 1]), "no raw_data"),
    "an unknown data_type": (bytes([0x08, 1, 0x10, 99, 0x4A, 4]) + b"\0" * 4, "data_type 99"),
    "raw_data shorter than its dims": (bytes([0x08, 3, 0x10, 1, 0x4A, 8]) + b"\0" * 8, "8 bytes of raw_data"),
    "a length past the file's end": (bytes([0x08, 1, 0x10, 1, 0x4A, 40]) + b"\0" * 4, "runs past the file's end"),
    "a file ending inside a varint": (bytes([0x08, 0x80]), "ends inside a field"),
    "dims claiming 1 GiB": (bytes([0x08, 0x80, 0x80, 0x80, 0x80, 0x04, 0x10, 1, 0x4A, 0]), "bytes of raw_data"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_file_that_breaks_a_rule_is_refused_from_its_header(tmp_path, case):
    data, said = HOSTILE[case]
    (tmp_path / "x.pb").write_bytes(data)
    with pytest.raises(WireError, match=said.replace("(", r"\(").replace(")", r"\)")):
        read_header(str(tmp_path / "x.pb"))


def test_a_tensor_over_the_limit_is_refused_before_anything_is_written(tmp_path):
    big = torch.zeros((64 << 20) // 4 + 1)
    with pytest.raises(WireError, match="over the limit"):
        write_tensor_file(str(tmp_path), "o/output_0.pb", "big", big)
    assert not list(tmp_path.rglob("*"))
