"""Outputs whose shape depends on the values (issue "Every model users bring"; doc/record-format.md §10): they are
compared by structure and shape first. torchvision's SSDlite with random weights finds another number of
detections in ONNX Runtime than in PyTorch (and the float64 copy yet another): the case is a mismatch naming each
output with the runtime's, the reference's and the oracle's shapes, and the record stays valid. An output whose
shape differs beside one that agrees: the difference is stated and the other output still compared (a stored
reference given another shape, as a record made so would hold it)."""
import json
import re

import numpy as np

from conftest import REPO, run_cli
import onnx
from onnx import numpy_helper

from module_support import write_profiles, zoo_profiles
from support import rehash, write_json

DETECTION = REPO / "tests" / "models" / "detection.py"
SHAPES = re.compile(r"output (\w+) has shape \[([\d, ]+)\], not the reference's \[([\d, ]+)\]")


def test_a_detectors_outputs_are_compared_by_shape_first(tmp_path):
    profile = {"name": "ssdlite", "exporter": "torchscript", "module": f"{DETECTION}:ssdlite",
               "inputs": [{"name": "image", "shape": [1, 3, 320, 320]}], "outputs": ["boxes", "scores", "labels"]}
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", [profile]), "--output",
                   tmp_path / "out" / "r.json", "--quiet")
    record = json.loads((tmp_path / "out" / "r.json").read_text())["profiles"][0]
    assert run_cli("validate", tmp_path / "out" / "r.json").returncode == 0
    case = record["input_cases"][0]
    assert record["stages"]["parity"]["status"] == "passed" or case["outcome"] == "mismatch"
    reference = {o["name"]: o["shape"] for o in case["outputs"]}
    assert set(reference) == {"boxes", "scores", "labels"} and reference["boxes"][1:] == [4]
    if case["outcome"] == "mismatch":  # this machine's ONNX Runtime: 256 boxes against PyTorch's 272
        assert done.returncode == 16
        found = {name: (runtime, expected) for name, runtime, expected in SHAPES.findall(case["detail"])}
        assert set(found) == {"boxes", "scores", "labels"}, case["detail"]
        for name, (runtime, expected) in found.items():
            assert [int(s) for s in expected.split(", ")] == reference[name] and runtime != expected
        assert "(the float64 oracle's: [" in case["detail"]
    else:
        assert done.returncode == 0 and case["outcome"] == "match"


def test_a_shape_difference_is_stated_and_the_other_outputs_still_compared(tmp_path):
    profile = next(p for p in zoo_profiles() if p["name"] == "two-in-two-out-torchscript")
    report = tmp_path / "out" / "r.json"
    assert run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", [profile]), "--output", report,
                   "--quiet").returncode == 0
    root = tmp_path / "out" / "r-artifacts"
    document = json.loads(report.read_text())
    record = document["profiles"][0]
    path = root / record["artifacts"]["directory"] / "test_data_set_0" / "output_1.pb"
    gate = numpy_helper.to_array(onnx.load_tensor_from_string(path.read_bytes()))
    wider = np.concatenate([gate, gate[:, :1]], axis=1)
    path.write_bytes(numpy_helper.from_array(wider, "gate").SerializeToString())
    record["input_cases"][0]["outputs"][1]["shape"] = list(wider.shape)
    rehash(record, root, "test_data_set_0/output_1.pb")
    write_json(report, document)
    assert run_cli("validate", report).returncode == 0
    done = run_cli("execute", report, root, "--output", tmp_path / "again.json", env={"NNX_PYTHON": "/bin/false"})
    assert done.returncode == 16, done.stderr
    case = json.loads((tmp_path / "again.json").read_text())["profiles"][0]["input_cases"][0]
    assert case["outcome"] == "mismatch"
    assert case["detail"].startswith("output gate has shape [2, 2], not the reference's [2, 3] (the float64 "
                                     "oracle's: [2, 2]); the outputs that could be compared: max_abs_error ")
    assert case["detail"].endswith(", within tolerance")  # scores, compared although gate could not be
