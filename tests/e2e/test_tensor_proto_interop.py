"""The TensorProto codec (src/onnx_file/tensor_proto.h) interoperates with the onnx package itself.

Through the tool `nnx_tensor_proto decode FILE.pb | encode FILE.json OUT.pb` (tests/tools/nnx_tensor_proto.cc):
- what the C++ encoder writes loads with onnx.numpy_helper.to_array(onnx.load_tensor(...)) to the same name,
  dtype, shape and bits, and is byte for byte what onnx.numpy_helper.from_array serialises;
- what from_array writes (raw_data), and what onnx.helper.make_tensor writes into the typed fields
  (float_data, double_data, int64_data, int32_data), decodes in C++ to the array's own bytes;
- a dtype the core does not support is refused, naming it.
The tool is found in $NNX_BUILD_DIR (default: <repo>/build).
"""
import json
import subprocess

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from conftest import BUILD
from support import built_tool

TOOL = BUILD / "nnx_tensor_proto"

RNG = np.random.default_rng(7)
ARRAYS = {
    "float32": np.array([[1.5, -0.0, np.inf], [np.nan, 1e-45, -3.25]], dtype=np.float32),
    "float64": RNG.standard_normal((2, 3, 2)),
    "int64": np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], dtype=np.int64),
    "int32": np.array([[np.iinfo(np.int32).min], [7]], dtype=np.int32),
    "bool": np.array([True, False, True], dtype=np.bool_),
    "float32-scalar": np.array(2.5, dtype=np.float32),
    "float32-empty": np.zeros((0, 4), dtype=np.float32),
}


def dtype_name(array):
    return "bool" if array.dtype == np.bool_ else str(array.dtype)


@pytest.fixture(scope="module")
def tool():
    return built_tool(TOOL)


def decoded(tool, path):
    result = subprocess.run([str(tool), "decode", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def assert_decodes_to(tool, path, name, array):
    got = decoded(tool, path)
    assert got == {"name": name, "dtype": dtype_name(array), "shape": list(array.shape),
                   "hex": array.tobytes().hex()}  # the host, like ONNX, is little-endian


@pytest.mark.parametrize("case", sorted(ARRAYS))
def test_what_cpp_encodes_loads_in_onnx(tool, tmp_path, case):
    array = ARRAYS[case]
    spec = {"name": f"input_{case}", "dtype": dtype_name(array), "shape": list(array.shape),
            "hex": array.tobytes().hex()}
    (tmp_path / "t.json").write_text(json.dumps(spec))
    result = subprocess.run([str(tool), "encode", str(tmp_path / "t.json"), str(tmp_path / "t.pb")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = onnx.load_tensor(str(tmp_path / "t.pb"))
    back = numpy_helper.to_array(loaded)
    assert loaded.name == spec["name"]
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()
    assert (tmp_path / "t.pb").read_bytes() == numpy_helper.from_array(array, spec["name"]).SerializeToString()


@pytest.mark.parametrize("case", sorted(ARRAYS))
def test_what_from_array_writes_decodes_in_cpp(tool, tmp_path, case):
    array = ARRAYS[case]
    onnx.save_tensor(numpy_helper.from_array(array, "x"), str(tmp_path / "input_0.pb"))
    assert_decodes_to(tool, tmp_path / "input_0.pb", "x", array)


@pytest.mark.parametrize("case", ["float32", "float64", "int64", "int32", "bool"])
def test_typed_fields_decode_in_cpp(tool, tmp_path, case):
    array = ARRAYS[case]
    tensor = helper.make_tensor("typed", helper.np_dtype_to_tensor_dtype(array.dtype), array.shape,
                                array.flatten().tolist(), raw=False)
    assert not tensor.HasField("raw_data")
    onnx.save_tensor(tensor, str(tmp_path / "typed.pb"))
    assert_decodes_to(tool, tmp_path / "typed.pb", "typed", array)


def test_an_unsupported_dtype_is_refused_by_name(tool, tmp_path):
    onnx.save_tensor(numpy_helper.from_array(np.ones(3, dtype=np.complex64), "z"), str(tmp_path / "z.pb"))
    result = subprocess.run([str(tool), "decode", str(tmp_path / "z.pb")], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert "unsupported data_type COMPLEX64 (14)" in result.stderr
