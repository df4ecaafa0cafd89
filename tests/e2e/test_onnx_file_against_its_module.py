"""Your own ONNX file checked against the module factory named beside it (doc/record-format.md §11): the
file a script of the test's own exported (do_constant_folding=False, weights as external data) reaches
`executed` against PyTorch's reference and the float64 oracle on drawn inputs, its graph input `input.1`
bound to forward's `x` (again under `execute --reference torch`); the same file with one initializer changed beyond tolerance is `mismatch` blamed
on the weights; a graph input that is no Python name and is not bound is exit 2 naming the way out."""
import json

import onnx
from onnx import numpy_helper

from conftest import run_cli
from onnx_file_support import export_own_file, factory_profile, write_profiles


def run(tmp_path, profiles):
    path = write_profiles(tmp_path / "p.json", profiles)
    done = run_cli("run", "--profile-file", path, "--output", tmp_path / "out" / "r.json", "--quiet")
    report = tmp_path / "out" / "r.json"
    return done, (json.loads(report.read_text())["profiles"][0] if report.exists() else None)


def test_an_own_file_checked_against_its_module_is_executed(tmp_path):
    folder = export_own_file(tmp_path / "src").parent
    done, record = run(tmp_path, factory_profile(folder, folder / "model.onnx"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (record["format"], record["level"]) == ("nnx.model-conformance/1", "executed")
    assert record["model"]["factory"].endswith("net.py:make") and record["model"]["bind"] == {"input.1": "x"}
    assert record["model"]["class"] == "net.Net" and len(record["model"]["state_sha256"]) == 64
    parity = record["stages"]["parity"]["detail"]
    assert parity["reference"] == "torch" and parity["missing_weights"] == []
    assert all(t["runtime_vs_oracle"] is not None for t in parity["triangulation"])
    assert [c["outcome"] for c in record["input_cases"]] == ["match", "match", "rejected"]
    assert record["stages"]["export"]["detail"]["imported"]["external"][0]["location"] == "weights.bin"
    assert run_cli("validate", tmp_path / "out" / "r.json").returncode == 0
    again = run_cli("execute", tmp_path / "out" / "r.json", tmp_path / "out" / "r-artifacts", "--output",
                    tmp_path / "again.json", env={"NNX_PYTHON": "/bin/false"})
    assert again.returncode == 0, again.stderr
    # --reference torch rebuilds the module its record names and gives input.1 to forward's x again
    torch = run_cli("execute", tmp_path / "out" / "r.json", tmp_path / "out" / "r-artifacts", "--output",
                    tmp_path / "torch.json", "--reference", "torch")
    assert torch.returncode == 0, torch.stdout + torch.stderr
    assert "importing" in torch.stderr and "net.py" in torch.stderr, torch.stderr
    replayed = json.loads((tmp_path / "torch.json").read_text())["profiles"][0]
    assert replayed["status"] == "passed" and replayed["stages"]["parity"]["detail"]["reference"] == "torch"
    assert [c["max_abs_error"] for c in replayed["input_cases"]] == [c["max_abs_error"] for c in record["input_cases"]]


def test_one_initializer_changed_beyond_tolerance_is_a_mismatch_blamed_on_the_weights(tmp_path):
    folder = export_own_file(tmp_path / "src").parent
    model = onnx.load(str(folder / "model.onnx"))  # its external data read in
    for tensor in model.graph.initializer:
        if tensor.name == "a.weight":
            values = numpy_helper.to_array(tensor).copy()
            values[0, 0] += 0.5
            tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
    changed = tmp_path / "changed" / "model.onnx"
    changed.parent.mkdir()
    onnx.save(model, str(changed))
    done, record = run(tmp_path, factory_profile(folder, changed))
    assert done.returncode == 16, done.stdout + done.stderr
    assert record["failure"] == "mismatch"
    parity = record["stages"]["parity"]["detail"]
    assert parity["blame"] == "weights" and parity["missing_weights"] == ["a.weight"]


def test_a_graph_input_that_is_no_parameter_name_must_be_bound(tmp_path):
    folder = export_own_file(tmp_path / "src").parent
    profile = factory_profile(folder, folder / "model.onnx")
    del profile[0]["bind"]
    done, _ = run(tmp_path, profile)
    assert done.returncode == 2, done.stderr
    assert 'the graph input named input.1 is not a Python parameter name' in done.stderr
    assert '{"input.1": "x"}' in done.stderr
