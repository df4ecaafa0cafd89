"""Inputs bound by name (doc/profile-files.md, "Inputs bound by name"; worker/nnx_worker_bind.py), on a real
forward(x, mask=None, scale=None) whose mask and scale change the output differently
(tests/models/keyword_inputs.py): a profile naming `x, scale` gives `scale` to `scale` by keyword — in
PyTorch's reference and in both real exporters — and reaches `executed` on ONNX Runtime, its stored reference
the module called with `scale=` (by position it would have gone to `mask`, another output); the record's export
detail states the binding. A name the forward lacks is refused before any export (exit 2), naming the
forward's signature and the nearest parameter."""
import importlib.util
import json

import numpy as np
import onnx
import pytest
import torch
from onnx import numpy_helper

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

MODELS = REPO / "tests" / "models" / "keyword_inputs.py"
EXPORTERS = ("torchscript", "dynamo")


def profile(exporter, second="scale"):
    return {"name": f"x-and-{second}-{exporter}", "exporter": exporter, "module": f"{MODELS}:mask_or_scale",
            "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"},
                       {"name": second, "shape": ["batch", 4], "dtype": "float32"}],
            "dims": {"batch": [2, 1, 3]}, "outputs": ["y"], "opset": 18}


@pytest.fixture(scope="module")
def keyword_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("by-name")
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", [profile(e) for e in EXPORTERS]),
                   "--output", out / "report.json", timeout=900)
    return done, json.loads((out / "report.json").read_text()), out


def load_module():
    """The factory's module, built here as the worker builds it."""
    spec = importlib.util.spec_from_file_location("keyword_inputs", MODELS)
    holder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(holder)
    return holder.mask_or_scale().eval()


def stored(folder, entry):
    return numpy_helper.to_array(onnx.load_tensor(str(folder / entry["file"])))


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_an_input_named_scale_goes_to_scale_by_keyword_and_reaches_executed(keyword_run, exporter):
    done, report, out = keyword_run
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(report)[f"x-and-scale-{exporter}"]
    assert (record["status"], record["level"], record["failure"]) == ("passed", "executed", None), record["stages"]
    assert record["stages"]["export"]["detail"]["binding"] == [
        {"input": "x", "parameter": "x", "passed": "position"},
        {"input": "scale", "parameter": "scale", "passed": "keyword"}]
    assert [i["name"] for i in record["stages"]["export"]["detail"]["graph"]["inputs"]] == ["x", "scale"]
    module = load_module()
    folder = out / "report-artifacts" / record["artifacts"]["directory"]
    matched = [c for c in record["input_cases"] if c["expect"] == "match"]
    assert len(matched) == 3 and all(c["outcome"] == "match" for c in matched)
    for case in matched:
        x, scale = (torch.from_numpy(stored(folder, i).copy()) for i in case["inputs"])
        reference = stored(folder, case["outputs"][0])
        with torch.no_grad():
            by_keyword, by_position = module(x, scale=scale).numpy(), module(x, scale).numpy()
        np.testing.assert_array_equal(reference, by_keyword)
        assert np.abs(reference - by_position).max() > 1.0  # the silent positional binding of before


def test_an_input_the_forward_lacks_is_refused_naming_the_signature_before_any_export(tmp_path):
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", [profile("dynamo", "scael")]),
                   "--output", tmp_path / "report.json", timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "profile x-and-scael-dynamo: the inputs ['scael'] are no parameters of the module's " \
           "forward(x, mask=None, scale=None)" in done.stderr, done.stderr
    assert 'did you mean "scale"?' in done.stderr
    assert not (tmp_path / "report.json").exists()
    assert not list((tmp_path / "report-artifacts").glob("**/model.onnx"))
