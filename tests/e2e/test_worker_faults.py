"""The worker's faults and external data. Faults are used only for outcomes nothing else produces on demand:
an exporter that raises or mutates the model, a file the checker refuses, shifted / non-finite / failing graphs,
a worker that crashes, hangs, answers garbage or floods its stdout. The product's worker has none: a faulty
worker is the stand-in tests/fakes/faulty_worker.py (the real worker with a fault of tests/fakes/faults.py named
by NNX_TEST_FAULT, conftest.fault_env), whose export answers also name the fault in "fault". External data:
the checker follows every tensor's location (initializers, sparse ones, attributes, nested subgraphs)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import pytest

from worker_support import _fault_workers, faulty, worker  # noqa: F401 (fixtures)
from worker_support import BATCHES, EXPORTERS, case_input, export_request, native, run_onnx

# faults (the stand-in worker tests/fakes/faulty_worker.py; each yields its documented effect)


def test_no_fault_in_the_stand_in_is_the_real_worker(faulty, tmp_path):
    res = faulty("").request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["exception"] is None and res["changed"] == [] and res["fault"] is None


def test_fault_exporter_raises(faulty, tmp_path):
    res = faulty("exporter-raises").request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["fault"] == "exporter-raises"
    assert res["exception"].startswith("RuntimeError: ")
    assert res["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert res["wrote_model"] is False


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_mutate_parameter(faulty, tmp_path, exporter):
    res = faulty("mutate-parameter").request(export_request(exporter, tmp_path))
    assert res["exception"] is None and res["fault"] == "mutate-parameter"
    assert res["changed"] == ["parameters"]
    assert res["model_state"] == {"parameters": False, "gradients": True, "modes": True}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_checker_refuses(faulty, tmp_path, exporter):
    w = faulty("checker-refuses")
    assert w.request(export_request(exporter, tmp_path))["wrote_model"] is True
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] and check["error"].startswith("ValidationError: ")
    assert "nnx_fault_no_such_value" in check["error"]


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_shift_outputs(faulty, tmp_path, exporter):
    w = faulty("shift-outputs")
    assert w.request(export_request(exporter, tmp_path))["model_state"]["parameters"] is True
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None and check["outputs"][0]["shape"] == ["batch", 2]
    for batch in BATCHES:
        x = case_input(batch)
        got, want = run_onnx(tmp_path / "model.onnx", x), native(x)
        np.testing.assert_allclose(got, want + np.float32(1e-3), rtol=1e-5, atol=1e-6)
        assert np.all(np.abs(got - want) > 9e-4)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_nonfinite_outputs(faulty, tmp_path, exporter):
    w = faulty("nonfinite-outputs")
    w.request(export_request(exporter, tmp_path))
    assert w.request({"op": "check", "path": str(tmp_path / "model.onnx")})["error"] is None
    assert np.isnan(run_onnx(tmp_path / "model.onnx", case_input(3))).all()


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_runtime_fails(faulty, tmp_path, exporter):
    w = faulty("runtime-fails")
    w.request(export_request(exporter, tmp_path))
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None
    assert check["inputs"][0]["shape"] == ["batch", "nnx_fault_width"], "any feature width is accepted"
    for x in (case_input(2), case_input(3, width=5, seed=2000)):
        with pytest.raises(Exception):
            run_onnx(tmp_path / "model.onnx", x)


def test_fault_crash(faulty, tmp_path):
    w = faulty("crash")
    w.send(export_request("torchscript", tmp_path))
    assert w.read_line(60) == b"", "fd 3 closes without an answer"
    assert w.proc.wait(timeout=30) == -signal.SIGKILL


def test_fault_hang(faulty, tmp_path):
    w = faulty("hang")
    assert w.request({"op": "ping"}) == {"ok": True}
    w.send(export_request("torchscript", tmp_path))
    assert w.read_line(3) is None
    assert w.proc.poll() is None
    w.proc.kill()


def test_fault_garbage(faulty, tmp_path):
    w = faulty("garbage")
    w.send(export_request("torchscript", tmp_path))
    line = w.read_line(60)
    with pytest.raises(ValueError):
        json.loads(line)


def test_fault_flood(faulty, tmp_path):
    w = faulty("flood")
    res = w.request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["exception"] is None and res["fault"] == "flood"
    assert os.fstat(w.log.fileno()).st_size >= 64 << 20
    assert "flood" not in res["log"], "the flood goes to the core's log pipe, not into the export log"


def test_unknown_fault_is_refused(faulty, tmp_path):
    res = faulty("no-such-fault").request(export_request("torchscript", tmp_path))
    assert res["ok"] is False and "no-such-fault" in res["error"]


# ------------------------------------------------------------------------------------------------
# external data


def test_external_data_of_a_resaved_export(worker, tmp_path):
    assert worker.request(export_request("torchscript", tmp_path))["wrote_model"] is True
    model = onnx.load(str(tmp_path / "model.onnx"))
    onnx.save_model(model, str(tmp_path / "external.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    check = worker.request({"op": "check", "path": str(tmp_path / "external.onnx")})
    assert check["error"] is None and check["external_data"] == ["weights.bin"]
    np.testing.assert_allclose(run_onnx(tmp_path / "external.onnx", case_input(3)), native(case_input(3)),
                               rtol=1e-4, atol=1e-5)


def _externalize(tensor: TensorProto, folder: Path, location: str) -> None:
    data = tensor.raw_data
    (folder / location).write_bytes(data)
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", str(len(data)))):
        tensor.external_data.add(key=key, value=value)


def test_external_data_everywhere(worker, tmp_path):
    """Initializers, sparse initializers, node attribute tensors and tensors of nested subgraphs."""
    vec = numpy_helper.from_array(np.arange(3, dtype=np.float32), "init")
    attr = numpy_helper.from_array(np.ones(3, dtype=np.float32), "attr_value")
    deep = numpy_helper.from_array(np.full(3, 2.0, dtype=np.float32), "deep_value")
    other = numpy_helper.from_array(np.full(3, 3.0, dtype=np.float32), "other_value")
    sparse_values = numpy_helper.from_array(np.array([5.0], dtype=np.float32), "sparse")
    for tensor, location in ((vec, "init.bin"), (attr, "attr.bin"), (deep, "deep.bin"), (other, "other.bin"),
                             (sparse_values, "sparse.bin")):
        _externalize(tensor, tmp_path, location)
    sparse = helper.make_sparse_tensor(sparse_values, numpy_helper.from_array(np.array([1], dtype=np.int64)), [3])

    out3 = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [3])  # noqa: E731
    inner_then = helper.make_graph([helper.make_node("Constant", [], ["deep"], value=deep)], "inner_then", [],
                                   [out3("deep")])
    inner_else = helper.make_graph([helper.make_node("Constant", [], ["other"], value=other)], "inner_else", [],
                                   [out3("other")])
    # then-branch holds a second If: the deepest tensor is two subgraph levels down.
    then_branch = helper.make_graph(
        [helper.make_node("If", ["cond"], ["nested"], then_branch=inner_then, else_branch=inner_else)],
        "then_branch", [], [out3("nested")])
    else_branch = helper.make_graph([helper.make_node("Identity", ["init"], ["plain"])], "else_branch", [],
                                    [out3("plain")])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], value=attr),
         helper.make_node("If", ["cond"], ["branch"], then_branch=then_branch, else_branch=else_branch),
         helper.make_node("Add", ["c", "branch"], ["y"])],
        "external_everywhere",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [out3("y")],
        initializer=[vec],
        sparse_initializer=[sparse])
    graph.sparse_initializer[0].values.name = "s"  # the sparse initializer's name (no op of opset 17 reads it)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(tmp_path / "model.onnx"))
    check = worker.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None, check["error"]
    assert check["external_data"] == ["attr.bin", "deep.bin", "init.bin", "other.bin", "sparse.bin"]
    assert check["opset"] == {"ai.onnx": 17}
    assert check["inputs"] == [{"name": "cond", "dtype": "bool", "shape": []}]
