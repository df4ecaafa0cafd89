"""External data spelled as the onnx library writes it: execute and verify accept every layout (issue: a model
referencing ./w.bin verified, passed onnx's full check, loaded in ONNX Runtime by path, yet execute failed with
load-error "External file: ./w.bin not found from the table user provided").

One real run of the torchscript tested profile. For each layout its model.onnx is saved again by onnx's own
onnx.save_model(..., save_as_external_data=True, size_threshold=0) with the location strings set exactly;
the record's artifacts.files are listed again (normalised path, role external-data, bytes, sha256) so that it
verifies; onnx.checker.check_model(path, full_check=True) accepts the folder; then `nnx-conformance execute`
must pass every case and `verify` must pass. A referenced file listed with another role is a load-error
naming the location; and `import onnx` and the package's reader live together in one Python process.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx.external_data_helper import convert_model_to_external_data

from conftest import BUILD, run_cli
from support import copy_artifacts, relist

PROFILE = "feedfwd-fp32-torchscript"


@pytest.fixture(scope="module")
def torchscript_run(tmp_path_factory):
    """One real run of the torchscript profile: (report path, artifacts root)."""
    out = tmp_path_factory.mktemp("torchscript")
    done = run_cli("run", "--output", out / "R.json", "--profile", PROFILE)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "R.json", out / "R-artifacts"


@pytest.fixture()
def copied(torchscript_run, tmp_path):
    """A private copy of the run's report and artifacts: (report path, artifacts root, profile folder)."""
    report, artifacts = torchscript_run
    root = copy_artifacts(artifacts, tmp_path)
    path = tmp_path / "R.json"
    shutil.copy(report, path)
    return path, root, root / PROFILE


def one_file(location):
    def save(model, path):
        (Path(path).parent / location).parent.mkdir(parents=True, exist_ok=True)
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=0)
    return save


def file_per_tensor(model, path):
    """onnx's own one-file-per-tensor layout: each location is the tensor's name, next to model.onnx."""
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=False, size_threshold=0)


def file_per_tensor_in_a_subfolder(model, path):
    """One file per tensor in weights/, spelled two ways ("./weights/0.bin", "weights/1.bin", ...)."""
    convert_model_to_external_data(model, all_tensors_to_one_file=False, size_threshold=0)
    (Path(path).parent / "weights").mkdir()
    for i, tensor in enumerate(model.graph.initializer):
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = ("./" if i % 2 == 0 else "") + f"weights/{i}.bin"
    onnx.save_model(model, path)


def locations(model_path):
    model = onnx.load(model_path, load_external_data=False)
    return sorted({e.value for t in model.graph.initializer for e in t.external_data if e.key == "location"})


def rewrite(copied, save):
    """model.onnx saved again by `save` (onnx's writer), the record relisted; returns the new locations."""
    report, _, folder = copied
    model_path = folder / "model.onnx"
    model = onnx.load(model_path)
    save(model, model_path)
    relist(report, folder)
    onnx.checker.check_model(str(model_path), full_check=True)
    return locations(model_path)


@pytest.mark.parametrize("save,expected", [
    (one_file("./w.bin"), ["./w.bin"]),
    (one_file("sub/w.bin"), ["sub/w.bin"]),
    (file_per_tensor, ["layers.0.bias", "layers.0.weight", "layers.1.bias", "layers.1.weight"]),
    (file_per_tensor_in_a_subfolder, ["./weights/0.bin", "./weights/2.bin", "weights/1.bin", "weights/3.bin"]),
], ids=["dot-slash", "subfolder", "file-per-tensor", "file-per-tensor-in-a-subfolder"])
def test_execute_and_verify_pass_on_external_data_as_onnx_writes_it(copied, tmp_path, save, expected):
    report, root, _ = copied
    assert rewrite(copied, save) == expected
    done = run_cli("verify", report, root)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_cli("execute", report, root, "--output", tmp_path / "again.json")
    assert done.returncode == 0, done.stdout + done.stderr
    again = json.loads((tmp_path / "again.json").read_text())["profiles"][0]
    assert again["status"] == "passed" and again["stages"]["load"]["status"] == "passed"
    assert again["input_cases"] and all(case["passed"] for case in again["input_cases"])


def test_a_referenced_file_listed_with_another_role_is_a_load_error_naming_its_location(copied, tmp_path):
    report, root, folder = copied
    assert rewrite(copied, one_file("./w.bin")) == ["./w.bin"]
    relist(report, folder, roles={"w.bin": "sidecar"})
    assert run_cli("verify", report, root).returncode == 0  # every byte is as listed: only the role is wrong
    done = run_cli("execute", report, root, "--output", tmp_path / "again.json")
    assert done.returncode == 15, done.stdout + done.stderr
    load = json.loads((tmp_path / "again.json").read_text())["profiles"][0]["stages"]["load"]
    assert load["failure"] == "load-error"
    assert load["detail"]["error"] == ('external data location "./w.bin" of model.onnx names w.bin, which the '
                                       'record lists as sidecar, not external-data')


ONE_PROCESS = """
import json, sys
first, build, report, root, model = sys.argv[1:]
def use_onnx():
    import onnx
    onnx.checker.check_model(model, full_check=True)
    return onnx.load(model).graph.initializer[0].name
def use_nnx():
    sys.path.insert(0, build)
    import nnx.export_conformance as ec
    record = json.load(open(report))["profiles"][0]
    return ec.execute(record, root)["status"]
if first == "onnx":
    print(json.dumps([use_onnx(), use_nnx(), use_onnx()]))
else:
    print(json.dumps([use_nnx(), use_onnx(), use_nnx()]))
"""


@pytest.mark.parametrize("first", ["onnx", "nnx"])
def test_onnx_and_the_packages_reader_share_one_python_process(copied, first):
    """onnx's own protobuf (its C++ extension) and the package's (nnx._core, protobuf-lite behind
    --exclude-libs) in one process, either imported first: no descriptor-pool clash, both read the model."""
    report, root, folder = copied
    rewrite(copied, one_file("./w.bin"))
    done = subprocess.run([sys.executable, "-c", ONE_PROCESS, first, str(BUILD / "python"), str(report), str(root),
                           str(folder / "model.onnx")], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr
    used = json.loads(done.stdout.splitlines()[-1])
    assert used == (["layers.0.weight", "passed", "layers.0.weight"] if first == "onnx"
                    else ["passed", "layers.0.weight", "passed"])
