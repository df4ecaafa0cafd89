"""Don't-care positions (doc/profile-files.md, "Positions nobody reads"; doc/record-format.md §10): a tiny
Hugging Face causal LM (GPT-2) under dynamo, given a left-padded attention mask, gets logits from ONNX
Runtime that differ from PyTorch's where the mask hides a query's whole window — a mismatch on positions no
user reads. The mask input's `hides: ["logits"]` excludes them: the same run is executed, its parity detail
counts what each case excluded, and `execute` without Python applies the rule from the record. A mask that
cannot hide (a float input, no named outputs, an unknown output) is exit 2 before any worker starts; an output
whose shape does not begin with the mask's is that case's mismatch, naming both."""
import json

import numpy as np
import pytest
from onnx import numpy_helper

from conftest import REPO, run_cli
from module_support import write_profiles

CAUSAL = REPO / "tests" / "models" / "hf_causal_lm.py"
DTYPES = REPO / "tests" / "models" / "input_dtypes.py"
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}
LEFT_PADDED = np.array([[0, 0, 0, 1, 1, 1, 1, 1], [1] * 8], dtype=np.int64)  # three padded positions in row 0


def causal_profile(name, data, hides=None):
    mask = {"name": "attention_mask", "shape": ["batch", "seq"], "dtype": "int64", "range": [1, 2]}
    if hides is not None:
        mask["hides"] = hides
    return {"name": name, "exporter": "dynamo", "module": f"{CAUSAL}:gpt2_lm",
            "inputs": [{"name": "input_ids", "shape": ["batch", "seq"], "dtype": "int64", "range": [0, 100]}, mask],
            "dims": {"batch": [2], "seq": [8]}, "outputs": ["logits"], "data": str(data)}


@pytest.fixture(scope="module")
def causal_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("causal")
    data = folder / "data" / "test_data_set_0"
    data.mkdir(parents=True)
    (data / "input_0.pb").write_bytes(numpy_helper.from_array(LEFT_PADDED, name="attention_mask").SerializeToString())
    profiles = [causal_profile("every-position", folder / "data"),
                causal_profile("padding-hidden", folder / "data", hides=["logits"])]
    done = run_cli("run", "--profile-file", write_profiles(folder / "p.json", profiles), "--output",
                   folder / "out" / "r.json", "--quiet")
    assert done.returncode == 16, done.stdout + done.stderr  # the first profile's mismatch
    report = json.loads((folder / "out" / "r.json").read_text())
    return folder, {r["profile"]: r for r in report["profiles"]}


def test_padded_positions_are_a_mismatch_when_every_position_counts(causal_runs):
    _, records = causal_runs
    record = records["every-position"]
    outcomes = {c["name"]: c["outcome"] for c in record["input_cases"]}
    assert outcomes == {"batch-2": "match", "data-set-0": "mismatch"}  # the drawn mask hides nothing
    assert "dont_care" not in record["stages"]["parity"]["detail"]


def test_hidden_positions_are_excluded_counted_and_the_model_executed(causal_runs):
    _, records = causal_runs
    record = records["padding-hidden"]
    assert (record["status"], record["level"]) == ("passed", "executed")
    assert record["inputs"][1]["hides"] == ["logits"]
    assert record["stages"]["parity"]["detail"]["dont_care"] == [
        {"case": "batch-2", "output": "logits", "input": "attention_mask", "excluded": 0},
        {"case": "data-set-0", "output": "logits", "input": "attention_mask", "excluded": 3 * 100}]
    case = next(c for c in record["input_cases"] if c["name"] == "data-set-0")
    assert case["max_abs_error"] < 1e-5


def test_execute_applies_the_records_rule_without_python(causal_runs, tmp_path):
    folder, _ = causal_runs
    report = folder / "out" / "r.json"
    assert run_cli("validate", report).returncode == 0
    done = run_cli("execute", report, folder / "out" / "r-artifacts", "--output", tmp_path / "again.json",
                   env=NO_PYTHON)
    assert done.returncode == 16, done.stderr  # the first record's mismatch again, the second passes
    again = {r["profile"]: r for r in json.loads((tmp_path / "again.json").read_text())["profiles"]}
    assert again["padding-hidden"]["status"] == "passed"
    assert again["padding-hidden"]["stages"]["parity"]["detail"]["dont_care"][1]["excluded"] == 300
    tampered = json.loads(report.read_text())
    tampered["profiles"][1]["inputs"][1]["hides"] = ["scores"]
    (tmp_path / "tampered.json").write_text(json.dumps(tampered))
    refused = run_cli("validate", tmp_path / "tampered.json")
    assert refused.returncode != 0 and 'inputs[1].hides: "scores" is not one of the outputs' in refused.stderr


def masked_mean_profile(tmp_path, mask_extra, outputs=("mean",)):
    mask = {"name": "mask", "shape": ["batch", 6], "dtype": "bool", **mask_extra}
    profile = {"name": "masked", "exporter": "torchscript", "module": f"{DTYPES}:masked_mean",
               "inputs": [{"name": "x", "shape": ["batch", 6]}, mask], "dims": {"batch": [2]}}
    if outputs is not None:
        profile["outputs"] = list(outputs)
    return write_profiles(tmp_path / "p.json", [profile])


@pytest.mark.parametrize("change, words", [
    ({"dtype": "float32", "hides": ["mean"]}, "only a bool or integer input hides positions"),
    ({"hides": ["mean"], "outputs": None}, "name the outputs (`outputs`) to hide positions of one"),
    ({"hides": ["scores"]}, '"scores" is not one of the outputs'),
    ({"hides": []}, "an empty list hides nothing"),
])
def test_a_mask_that_cannot_hide_is_refused_before_any_worker_starts(tmp_path, change, words):
    change = dict(change)
    outputs = change.pop("outputs", ("mean",))
    done = run_cli("run", "--profile-file", masked_mean_profile(tmp_path, change, outputs), "--output",
                   tmp_path / "out" / "r.json", env=NO_PYTHON)
    assert done.returncode == 2 and "hides: " + words in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_an_output_that_does_not_begin_with_the_masks_shape_is_the_cases_mismatch(tmp_path):
    done = run_cli("run", "--profile-file", masked_mean_profile(tmp_path, {"hides": ["mean"]}), "--output",
                   tmp_path / "out" / "r.json", "--quiet")
    assert done.returncode == 16, done.stdout + done.stderr
    record = json.loads((tmp_path / "out" / "r.json").read_text())["profiles"][0]
    case = record["input_cases"][0]
    assert case["outcome"] == "mismatch"
    assert "output mean [2] does not begin with the shape of mask [2, 6]" in json.dumps(case["detail"])
