"""Inputs you give (doc/profile-files.md, "Inputs you give"; doc/record-format.md §10): a module profile's
`data` folder in ONNX Runtime's layout (test_data_set_<N>/input_<j>.pb) gives some inputs of a case — a bool
mask here, bound by its TensorProto name — and the others are drawn; each data set is one more case,
`data-set-<N>`, whose stored inputs are the given values, whose PyTorch reference was computed on them, and
whose record names the file each given input came from; `validate` checks that name and `execute` replays the
case without Python. A data set that does not fit (a name the forward lacks, a size not among the dims, a
dtype, output files) is exit 2 before any worker starts. An ONNX file checked against its module and its data
sets together takes the data sets' inputs; `check_module(..., keep_example=True)` keeps the example's values."""
import json
import shutil
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import BUILD, REPO, require_runtime, run_cli
from module_support import run_one_profile, write_profiles
from onnx_file_support import export_own_file, factory_profile

MODELS = REPO / "tests" / "models" / "input_dtypes.py"
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}
MASK = np.array([[True, True, False, False, False, False], [True] * 6, [False, True, False, True, False, True]])
X1 = np.arange(6, dtype=np.float32).reshape(1, 6)


def write_pb(path, values, name):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(numpy_helper.from_array(values, name=name).SerializeToString())


def read_pb(path):
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return tensor.name, numpy_helper.to_array(tensor)


def masked_profile(data, name="given"):
    return {"name": name, "exporter": "dynamo", "module": f"{MODELS}:masked_mean",
            "inputs": [{"name": "x", "shape": ["batch", 6]}, {"name": "mask", "shape": ["batch", 6], "dtype": "bool"}],
            "dims": {"batch": [2, 1, 3]}, "data": str(data)}


@pytest.fixture(scope="module")
def given_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("given")
    write_pb(folder / "data" / "test_data_set_0" / "input_0.pb", MASK, "mask")  # the mask given, x drawn
    write_pb(folder / "data" / "test_data_set_1" / "input_0.pb", np.array([[True] + [False] * 5]), "mask")
    write_pb(folder / "data" / "test_data_set_1" / "input_1.pb", X1, "x")  # both given, in another order
    return folder, run_one_profile(folder, masked_profile(folder / "data"))


def test_each_data_set_is_a_case_whose_given_inputs_are_stored_and_named(given_run):
    folder, record = given_run
    assert record["status"] == "passed" and record["level"] == "executed"
    cases = {c["name"]: c for c in record["input_cases"]}
    assert [c["name"] for c in record["input_cases"]][:5] == ["batch-2", "batch-1", "batch-3", "data-set-0", "data-set-1"]
    assert [i.get("given") for i in cases["data-set-0"]["inputs"]] == [None, "test_data_set_0/input_0.pb"]
    assert [i.get("given") for i in cases["data-set-1"]["inputs"]] == ["test_data_set_1/input_1.pb",
                                                                        "test_data_set_1/input_0.pb"]
    assert cases["data-set-0"]["dims"] == {"batch": 3} and cases["data-set-1"]["dims"] == {"batch": 1}
    assert all("given" not in i for c in record["input_cases"][:3] for i in c["inputs"])  # drawn cases unchanged
    artifacts = folder / "out" / "r-artifacts" / "given"
    name, mask = read_pb(artifacts / cases["data-set-0"]["inputs"][1]["file"])
    assert name == "mask" and mask.dtype == np.bool_ and (mask == MASK).all()
    name, x = read_pb(artifacts / cases["data-set-1"]["inputs"][0]["file"])
    assert name == "x" and (x == X1).all()
    drawn_x = read_pb(artifacts / cases["data-set-0"]["inputs"][0]["file"])[1]
    assert drawn_x.shape == (3, 6) and not (drawn_x == 0).all()


def test_the_reference_of_a_given_case_is_pytorch_on_the_given_values(given_run):
    import torch

    sys.path.insert(0, str(MODELS.parent))
    import input_dtypes

    folder, record = given_run
    case = next(c for c in record["input_cases"] if c["name"] == "data-set-1")
    artifacts = folder / "out" / "r-artifacts" / "given"
    stored = read_pb(artifacts / case["outputs"][0]["file"])[1]
    with torch.no_grad():
        expected = input_dtypes.masked_mean()(torch.from_numpy(X1), torch.tensor([[True] + [False] * 5]))
    np.testing.assert_allclose(stored, expected.numpy(), rtol=1e-6, atol=1e-6)


def test_validate_checks_the_given_name_and_execute_replays_without_python(given_run, tmp_path):
    folder, _ = given_run
    report = folder / "out" / "r.json"
    assert run_cli("validate", report).returncode == 0
    again = run_cli("execute", report, folder / "out" / "r-artifacts", "--output", tmp_path / "again.json", env=NO_PYTHON)
    assert again.returncode == 0, again.stderr
    replayed = json.loads((tmp_path / "again.json").read_text())["profiles"][0]
    assert [c["outcome"] for c in replayed["input_cases"]][3:5] == ["match", "match"]
    for bad in ["../../etc/passwd", 3, "test_data_set_0/output_0.pb"]:
        tampered = json.loads(report.read_text())
        tampered["profiles"][0]["input_cases"][3]["inputs"][1]["given"] = bad
        path = tmp_path / "tampered.json"
        path.write_text(json.dumps(tampered))
        done = run_cli("validate", path)
        assert done.returncode != 0 and "input_cases[3] (data-set-0).inputs[1].given" in done.stderr, bad


@pytest.mark.parametrize("files, words", [
    ({"input_0.pb": (MASK[:2], "maks")}, ['names "maks", no input of the profile\'s ["x","mask"]']),
    ({"input_0.pb": (np.ones((5, 6), bool), "mask")}, ["gives dim batch the size 5, not one of dims.batch [2,1,3]",
                                                       "add it there"]),
    ({"input_0.pb": (np.ones((2, 6), np.float32), "mask")}, ["is float32, input mask is bool"]),
    ({"input_0.pb": (np.ones((2, 5), bool), "mask")}, ["has size 5 on axis 1, input mask the fixed size 6"]),
    ({"input_0.pb": (MASK[:2], "mask"), "output_0.pb": (np.ones(2, np.float32), "y")},
     ["give inputs only", "remove the output_<j>.pb files"]),
])
def test_a_data_set_that_does_not_fit_is_refused_before_any_worker_starts(tmp_path, files, words):
    for file, (values, name) in files.items():
        write_pb(tmp_path / "data" / "test_data_set_0" / file, values, name)
    profiles = write_profiles(tmp_path / "p.json", [masked_profile(tmp_path / "data")])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "r.json", env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "profiles[0].data: " in done.stderr and all(w in done.stderr for w in words), done.stderr
    assert not (tmp_path / "out").exists()


def test_an_onnx_file_against_its_module_takes_its_data_sets_inputs(tmp_path):
    folder = export_own_file(tmp_path / "src").parent
    for k in (0, 1):  # the data sets' inputs only: the module gives the reference
        (tmp_path / "given" / f"test_data_set_{k}").mkdir(parents=True)
        shutil.copy(folder / "data" / f"test_data_set_{k}" / "input_0.pb", tmp_path / "given" / f"test_data_set_{k}")
    profile = factory_profile(folder, folder / "model.onnx")
    profile[0].update(data=str(tmp_path / "given"), dims={"batch": [2, 1, 4]})
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", profile), "--output",
                   tmp_path / "out" / "r.json", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((tmp_path / "out" / "r.json").read_text())["profiles"][0]
    assert record["model"]["data"] == str(tmp_path / "given") and record["model"]["factory"].endswith("net.py:make")
    cases = {c["name"]: c for c in record["input_cases"]}
    assert cases["data-set-1"]["dims"] == {"batch": 4} and cases["data-set-1"]["outcome"] == "match"
    assert cases["data-set-1"]["inputs"][0]["given"] == "test_data_set_1/input_0.pb"
    assert record["stages"]["parity"]["detail"]["reference"] == "torch"
    stored = read_pb(tmp_path / "out" / "r-artifacts" / "vs-module" / cases["data-set-1"]["inputs"][0]["file"])[1]
    assert (stored == read_pb(folder / "data" / "test_data_set_1" / "input_0.pb")[1]).all()
    assert run_cli("validate", tmp_path / "out" / "r.json").returncode == 0
    with_outputs = factory_profile(folder, folder / "model.onnx")
    with_outputs[0].update(data=str(folder / "data"), dims={"batch": [2, 1, 4]})
    refused = run_cli("run", "--profile-file", write_profiles(tmp_path / "q.json", with_outputs), "--output",
                      tmp_path / "q" / "r.json", env=NO_PYTHON)
    assert refused.returncode == 2 and "remove the output_<j>.pb files" in refused.stderr, refused.stderr


def test_check_module_keeps_the_examples_values_as_a_case(tmp_path):
    require_runtime()
    sys.path.insert(0, str(BUILD / "python"))
    sys.path.insert(0, str(MODELS.parent))
    import torch

    import input_dtypes
    import nnx.export_conformance as ec

    x = torch.randn(2, 6)
    mask = torch.tensor([[True, False, True, False, True, False], [False] * 5 + [True]])
    record = ec.check_module(input_dtypes.masked_mean(), (x, mask), name="kept", exporter="dynamo", root=tmp_path,
                             inputs=[{"name": "x", "shape": ["batch", 6]}, {"name": "mask", "shape": ["batch", 6]}],
                             dims={"batch": [2, 1]}, keep_example=True)
    assert record["status"] == "passed", ec.summary_lines([record])
    case = next(c for c in record["input_cases"] if c["name"] == "data-set-0")
    assert [i["given"] for i in case["inputs"]] == ["test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb"]
    folder = tmp_path / "kept"
    assert (read_pb(folder / case["inputs"][0]["file"])[1] == x.numpy()).all()
    assert (read_pb(folder / case["inputs"][1]["file"])[1] == mask.numpy()).all()
    profile = ec.ModuleProfile.from_json({**ec.ModuleProfile("p", "dynamo", f"{MODELS}:masked_mean",
                                                             [{"name": "x", "shape": ["batch", 6]},
                                                              {"name": "mask", "shape": ["batch", 6], "dtype": "bool"}],
                                                             {"batch": [2]}).to_json(),
                                          "data": str(tmp_path / ".nnx-modules" / "kept" / "example")})
    assert profile.to_json()["data"] == str(tmp_path / ".nnx-modules" / "kept" / "example")
