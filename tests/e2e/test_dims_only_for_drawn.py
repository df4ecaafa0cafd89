"""Dims are needed only for inputs that are drawn (issue "One pipeline for every model kind"; doc/profile-files.md,
"Inputs you give"): a module profile whose data sets give every input leaves `dims` (and an integer input's
`range`) out; each dim then takes the sizes the data sets give it, the record states them, and the profile draws
no case of its dims: its match cases are the data sets'. The same for an ONNX file checked against its module
with data sets. A data set that leaves out an input using such a dim, or an integer input some case still
draws without a range, is exit 2 before any worker starts."""
import json
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import BUILD, REPO, require_runtime, run_cli
from module_support import run_one_profile, write_profiles
from onnx_file_support import export_own_file

MODEL = REPO / "tests" / "models" / "token_ids.py"
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}
IDS = {0: np.array([[3, 7, 11, 0, 0], [5, 9, 2, 8, 1]]), 1: np.array([[4, 4, 4]])}
MASK = {0: np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]), 1: np.array([[1, 1, 0]])}


def write_pb(path, values, name):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(numpy_helper.from_array(values, name=name).SerializeToString())


def write_data(folder, sets=(0, 1), mask_in=(0, 1)):
    for k in sets:
        write_pb(folder / f"test_data_set_{k}" / "input_0.pb", IDS[k].astype(np.int64), "input_ids")
        if k in mask_in:
            write_pb(folder / f"test_data_set_{k}" / "input_1.pb", MASK[k].astype(np.int64), "attention_mask")
    return folder


def token_profile(data, **extra):
    return {"name": "tokens", "exporter": "dynamo", "module": f"{MODEL}:make", "data": str(data),
            "inputs": [{"name": "input_ids", "shape": ["batch", "seq"], "dtype": "int64"},
                       {"name": "attention_mask", "shape": ["batch", "seq"], "dtype": "int64"}], **extra}


@pytest.fixture(scope="module")
def given_only(tmp_path_factory):
    folder = tmp_path_factory.mktemp("given-only")
    return folder, run_one_profile(folder, token_profile(write_data(folder / "data")))


def test_data_sets_giving_every_input_need_no_dims_and_no_range(given_only):
    _, record = given_only
    assert record["status"] == "passed" and record["level"] == "executed"
    assert [c["name"] for c in record["input_cases"]] == ["data-set-0", "data-set-1"]  # nothing drawn
    assert record["dims"] == {"batch": [2, 1], "seq": [5, 3]}  # the sizes the data sets gave, in their order
    assert [c["dims"] for c in record["input_cases"]] == [{"batch": 2, "seq": 5}, {"batch": 1, "seq": 3}]
    assert all(i["given"] for c in record["input_cases"] for i in c["inputs"])
    assert [i["range"] for i in record["inputs"]] == [None, None]


def test_a_given_only_record_validates_and_execute_replays_it_without_python(given_only, tmp_path):
    folder, _ = given_only
    assert run_cli("validate", folder / "out" / "r.json").returncode == 0
    again = run_cli("execute", folder / "out" / "r.json", folder / "out" / "r-artifacts", "--output",
                    tmp_path / "again.json", env=NO_PYTHON)
    assert again.returncode == 0, again.stderr
    replayed = json.loads((tmp_path / "again.json").read_text())["profiles"][0]
    assert [c["outcome"] for c in replayed["input_cases"]] == ["match", "match"]


def test_an_onnx_file_against_its_module_and_data_sets_needs_no_dims(tmp_path):
    folder = export_own_file(tmp_path / "src").parent
    profile = {"name": "vs-module", "onnx": str(folder / "model.onnx"), "module": f"{folder / 'net.py'}:make",
               "bind": {"input.1": "x"}, "data": str(tmp_path / "given")}
    for k in (0, 1):  # the data sets' inputs only: the module gives the reference
        source = onnx.TensorProto()
        source.ParseFromString((folder / "data" / f"test_data_set_{k}" / "input_0.pb").read_bytes())
        write_pb(tmp_path / "given" / f"test_data_set_{k}" / "input_0.pb", numpy_helper.to_array(source), source.name)
    record = run_one_profile(tmp_path, profile)
    assert record["level"] == "executed"
    assert [c["name"] for c in record["input_cases"] if c["expect"] == "match"] == ["data-set-0", "data-set-1"]
    assert record["stages"]["parity"]["detail"]["reference"] == "torch"
    assert run_cli("validate", tmp_path / "out" / "r.json").returncode == 0


def refused(tmp_path, profile):
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", [profile]), "--output",
                   tmp_path / "out" / "r.json", env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert not (tmp_path / "out").exists()
    return done.stderr


def test_a_dim_left_out_that_a_data_set_does_not_set_is_refused_naming_it(tmp_path):
    profile = token_profile(write_data(tmp_path / "data", mask_in=(0,)))
    profile["inputs"][1]["shape"] = ["batch", "mask_seq"]  # data set 1 gives no input that sets mask_seq
    profile["inputs"][1]["range"] = [0, 2]
    stderr = refused(tmp_path, profile)
    assert "test_data_set_1 gives no input that sets dim mask_seq: give its sizes in dims" in stderr, stderr


def test_an_integer_input_a_data_set_leaves_out_is_drawn_and_needs_its_range(tmp_path):
    stderr = refused(tmp_path, token_profile(write_data(tmp_path / "data", mask_in=(0,))))
    assert 'inputs[1].range: an integer input needs "range": [low, high) (it is drawn' in stderr, stderr


def test_without_data_sets_every_dim_needs_its_values(tmp_path):
    profile = token_profile(tmp_path)
    del profile["data"]
    stderr = refused(tmp_path, profile)
    assert 'the dimension "batch" has no values (give them in dims, or give every input that uses it in data sets' in stderr


def test_the_python_module_profile_leaves_dims_out_too(tmp_path):
    require_runtime()
    sys.path.insert(0, str(BUILD / "python"))
    import nnx.export_conformance as ec

    spec = token_profile(write_data(tmp_path / "data"))
    profile = ec.ModuleProfile("tokens", "dynamo", spec["module"], spec["inputs"], data=spec["data"])
    assert profile.to_json()["dims"] == {}
    record = ec.run_profile(profile, tmp_path / "runs")
    assert record["status"] == "passed", ec.summary_lines([record])
    assert [c["name"] for c in record["input_cases"]] == ["data-set-0", "data-set-1"]
    assert record["dims"] == {"batch": [2, 1], "seq": [5, 3]}
