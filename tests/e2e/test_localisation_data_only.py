"""Localisation of a data-only record (doc/localisation.md, "Whose values"): an ONNX file given with a data
folder and no factory has no module to rebuild, so ONNX Runtime's values are compared with those of ONNX's
reference evaluator, at the record's level and at ORT_DISABLE_ALL, and no code of the file's author runs.

Two real graphs, written with onnx's helper and run on real ONNX Runtime:
- an int32 sum that overflows: ONNX Runtime's ReduceSum saturates where the reference evaluator wraps as C
  integers do, so the ReduceSum is named, it introduces the difference and the Add after it carries it;
- a floor division the graph spells as truncation (the TorchScript exporter's pytorch/pytorch#44692) with
  data that floors: ONNX Runtime computes what the graph says, so no value departs and the summary puts the
  mismatch in the graph or its data, not the runtime.
`execute --localize` of the data-only record needs no torch reference and writes its repro beside the output."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import require_runtime, run_cli
from localisation_support import localisation_of


def write_case(folder, model, inputs: dict, expected: dict):
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, folder / "model.onnx")
    data = folder / "test_data_set_0"
    data.mkdir()
    for j, (name, value) in enumerate(inputs.items()):
        (data / f"input_{j}.pb").write_bytes(numpy_helper.from_array(value, name).SerializeToString())
    for j, (name, value) in enumerate(expected.items()):
        (data / f"output_{j}.pb").write_bytes(numpy_helper.from_array(value, name).SerializeToString())


def overflowing_sum(folder):
    """x int32[4] -> Mul by 2 -> ReduceSum -> Add 1: the sum passes 2^31."""
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["doubled"], name="double"),
         helper.make_node("ReduceSum", ["doubled"], ["total"], name="sum", keepdims=0),
         helper.make_node("Add", ["total", "one"], ["y"], name="plus_one")],
        "overflow", [helper.make_tensor_value_info("x", TensorProto.INT32, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [])],
        initializer=[numpy_helper.from_array(np.array(2, np.int32), "two"),
                     numpy_helper.from_array(np.array(1, np.int32), "one")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = np.array([2**29, 2**29, 2**29, 5], np.int32)
    wrapped = np.array((x.astype(np.int64) * 2).sum() + 1, np.int64).astype(np.int32)  # as C int32 arithmetic
    write_case(folder, model, {"x": x}, {"y": wrapped})


def truncating_floor(folder):
    """y = float(int(x) / 3): the graph truncates, the data floors."""
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["whole"], name="to_int", to=TensorProto.INT64),
         helper.make_node("Div", ["whole", "three"], ["bucket"], name="divide"),
         helper.make_node("Cast", ["bucket"], ["y"], name="to_float", to=TensorProto.FLOAT)],
        "floor", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
        initializer=[numpy_helper.from_array(np.array(3, np.int64), "three")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = np.array([-7, -4, -1, 2, 5, 8], np.float32)
    write_case(folder, model, {"x": x}, {"y": (x.astype(np.int64) // 3).astype(np.float32)})


@pytest.fixture(scope="module")
def localised(tmp_path_factory):
    require_runtime()
    folder = tmp_path_factory.mktemp("data-only")
    overflowing_sum(folder / "overflow")
    truncating_floor(folder / "floor")
    profiles = [{"name": "overflow", "onnx": str(folder / "overflow" / "model.onnx"), "data": str(folder / "overflow"),
                 "rtol": 0, "atol": 0},
                {"name": "floor", "onnx": str(folder / "floor" / "model.onnx"), "data": str(folder / "floor"),
                 "rtol": 0, "atol": 0}]
    (folder / "profiles.json").write_text(json.dumps(profiles))
    done = run_cli("run", "--profile-file", folder / "profiles.json", "--output", folder / "report.json",
                   "--markdown", folder / "r.md")
    assert done.returncode != 0, done.stderr
    report = json.loads((folder / "report.json").read_text())
    return folder, {r["profile"]: r for r in report["profiles"]}, done


def test_a_runtime_difference_from_the_reference_evaluator_is_named_at_the_node_that_introduces_it(localised):
    folder, records, _ = localised
    found = localisation_of(records["overflow"])
    assert found["status"] == "departs", found
    assert found["coverage"]["reference"] == "ONNX's reference evaluator"
    assert found["coverage"]["granularity"] == "value"
    assert found["coverage"]["aligned"] == found["coverage"]["reference_values"] == 3
    first = found["first_departing"]
    assert (first["node"], first["op_type"], first["value"]) == ("sum", "ReduceSum", "total")
    assert first["rerun"]["verdict"] == "introduces"
    assert (found["next_departing"]["node"], found["next_departing"]["rerun"]["verdict"]) == ("plus_one", "carries")
    assert [level["level"] for level in found["levels"]] == ["ORT_ENABLE_ALL", "ORT_DISABLE_ALL"]
    assert "ONNX Runtime first departs from ONNX's reference evaluator at ReduceSum node 'sum'" in found["summary"]
    assert "ONNX specification" in (folder / "r.md").read_text()


def test_a_graph_that_computes_something_else_than_its_data_is_put_on_the_graph_not_the_runtime(localised):
    _, records, _ = localised
    found = localisation_of(records["floor"])
    assert records["floor"]["status"] == "failed"
    assert found["status"] == "no-departure", found
    assert found["coverage"]["aligned"] == 3
    assert "lies in the graph or in those outputs, not in the runtime" in found["summary"]


def test_execute_localises_a_data_only_record_without_a_torch_reference(localised, tmp_path):
    folder, _, _ = localised
    done = run_cli("execute", folder / "report.json", folder / "report-artifacts", "--localize",
                   "--output", tmp_path / "again.json")
    assert done.returncode != 0 and "--reference" not in done.stderr, done.stderr
    again = {r["profile"]: r for r in json.loads((tmp_path / "again.json").read_text())["profiles"]}
    found = localisation_of(again["overflow"])
    assert found["first_departing"]["node"] == "sum"
    repro = tmp_path / "again-repro" / "overflow"
    assert (repro / "model.onnx").is_file() and (repro / "report.json").is_file()
    replay = run_cli("execute", repro / "report.json", repro / "artifacts")
    assert replay.returncode == 16, replay.stdout + replay.stderr
