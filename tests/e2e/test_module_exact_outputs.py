"""Integer and bool outputs (doc/record-format.md §10, "Integer and bool outputs"), on real exports of models
this project's zoo does not have (tests/models/exact_outputs.py): an argmax head (logits and their label) and
nonzero indices with their bool mask, under both exporters, reach `executed`, each integer output compared
exactly and stated in the parity detail. The near-tie rule on the stored data `execute` reads (no Python): an
index that differs where the float64 oracle's scores tie the two candidates is not a failure, one where they
are separated is; where the oracle cannot tell (nonzero indices) every difference counts; an output whose
dtype is not PyTorch's is its own finding, never blamed on the reference."""
import json

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import REPO, run_cli
from module_support import write_profiles
from support import copy_artifacts, records_by_profile, rehash, write_json

MODELS = REPO / "tests" / "models" / "exact_outputs.py"
EXPORTERS = ("torchscript", "dynamo")
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}


def profile(name, factory, exporter, features, outputs):
    return {"name": f"{name}-{exporter}", "exporter": exporter, "module": f"{MODELS}:{factory}",
            "inputs": [{"name": "x", "shape": ["batch", features], "dtype": "float32"}],
            "dims": {"batch": [2, 1, 3]}, "outputs": outputs, "opset": 18}


@pytest.fixture(scope="module")
def exact_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact")
    profiles = [profile("argmax", "argmax_head", e, 8, ["logits", "label"]) for e in EXPORTERS] + \
               [profile("nonzero", "nonzero_indices", e, 6, ["indices", "mask"]) for e in EXPORTERS]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=1200)
    return done, json.loads((out / "report.json").read_text()), out


def exact_entries(record):
    return record["stages"]["parity"]["detail"]["exact_outputs"]


@pytest.mark.parametrize("exporter", EXPORTERS)
@pytest.mark.parametrize("model", ["argmax", "nonzero"])
def test_integer_and_bool_outputs_reach_executed_compared_exactly(exact_run, model, exporter):
    done, report, _ = exact_run
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(report)[f"{model}-{exporter}"]
    assert (record["status"], record["level"], record["failure"]) == ("passed", "executed", None), record["stages"]
    entries = exact_entries(record)
    exact = {"argmax": {"label": "int64"}, "nonzero": {"indices": "int64", "mask": "bool"}}[model]
    assert {(e["output"], e["dtype"]) for e in entries} == set(exact.items())
    assert {e["case"] for e in entries} == {"batch-2", "batch-1", "batch-3"}
    assert all(e["differing"] == 0 and e["elements"] > 0 for e in entries)
    # the argmax's float64 scores were traced (near ties countable); nonzero's and a mask's cannot be
    assert all((e["near_ties"] == 0) == (model == "argmax") and (e["near_ties"] is None) == (model != "argmax")
               for e in entries)
    assert "dtype_differs" not in record["stages"]["parity"]["detail"]


def test_an_argmax_label_has_its_oracle_scores_stored_as_the_float64_candidates(exact_run):
    _, report, out = exact_run
    record = records_by_profile(report)["argmax-torchscript"]
    label = record["input_cases"][0]["outputs"][1]
    folder = out / "report-artifacts" / record["artifacts"]["directory"]
    scores = numpy_helper.to_array(onnx.load_tensor(str(folder / label["oracle_file"])))
    stored = numpy_helper.to_array(onnx.load_tensor(str(folder / label["file"])))
    assert scores.dtype == np.float64 and list(scores.shape) == label["shape"] + [10]
    assert (scores.argmax(axis=-1) == stored).all()
    indices = records_by_profile(report)["nonzero-torchscript"]["input_cases"][0]["outputs"][0]
    assert indices["dtype"] == "int64" and indices["oracle_file"] is None


def planted(exact_run, tmp_path, profile_name, edit):
    """The report of `profile_name` alone with its stored data edited by `edit(record, folder)`, executed
    without Python: (exit code, the record execute wrote)."""
    _, report, out = exact_run
    artifacts = copy_artifacts(out / "report-artifacts", tmp_path)
    record = json.loads(json.dumps(records_by_profile(report)[profile_name]))
    edit(record, artifacts / record["artifacts"]["directory"])
    for f in record["artifacts"]["files"]:
        rehash(record, artifacts, f["path"])
    write_json(tmp_path / "r.json", {"format": report["format"], "status": "passed", "profiles": [record]})
    done = run_cli("execute", tmp_path / "r.json", artifacts, "--output", tmp_path / "x.json", env=NO_PYTHON)
    executed = json.loads((tmp_path / "x.json").read_text())["profiles"][0]
    assert run_cli("validate", tmp_path / "x.json").returncode == 0
    return done.returncode, executed


def load(path):
    return numpy_helper.to_array(onnx.load_tensor(str(path))).copy()


def save(path, values, name):
    path.write_bytes(numpy_helper.from_array(values, name).SerializeToString())


def swap_first_label(tie: bool):
    """PyTorch's stored label of batch-2's first row replaced by its runner-up; with `tie`, the oracle's
    scores of the two candidates made equal but for 1e-9 (a planted near tie)."""
    def edit(record, folder):
        label = record["input_cases"][0]["outputs"][1]
        labels, scores = load(folder / label["file"]), load(folder / label["oracle_file"])
        runner_up = int(np.argsort(scores[0])[-2])
        if tie:
            scores[0, runner_up] = scores[0, labels[0]] - 1e-9
            save(folder / label["oracle_file"], scores, "label")
        labels[0] = runner_up
        save(folder / label["file"], labels, "label")
    return edit


def test_an_index_that_differs_over_a_planted_near_tie_is_not_a_failure(exact_run, tmp_path):
    code, record = planted(exact_run, tmp_path, "argmax-torchscript", swap_first_label(tie=True))
    assert code == 0, record["stages"]["parity"]
    assert record["input_cases"][0]["outcome"] == "match"
    entry = exact_entries(record)[0]
    assert (entry["case"], entry["output"], entry["differing"], entry["near_ties"]) == ("batch-2", "label", 1, 1)


def test_an_index_that_differs_where_the_oracle_separates_the_candidates_is_a_mismatch(exact_run, tmp_path):
    code, record = planted(exact_run, tmp_path, "argmax-torchscript", swap_first_label(tie=False))
    assert (code, record["failure"]) == (16, "mismatch")
    case = record["input_cases"][0]
    assert case["outcome"] == "mismatch" and case["max_abs_error"] is not None
    entry = exact_entries(record)[0]
    assert (entry["differing"], entry["near_ties"]) == (1, 0)
    assert record["stages"]["parity"]["detail"]["blame"] == "runtime-or-graph"


def test_a_differing_index_the_oracle_cannot_judge_counts_and_blames_both(exact_run, tmp_path):
    def edit(record, folder):
        indices = record["input_cases"][0]["outputs"][0]
        values = load(folder / indices["file"])
        values[0, 1] = (values[0, 1] + 1) % 6
        save(folder / indices["file"], values, "indices")
    code, record = planted(exact_run, tmp_path, "nonzero-dynamo", edit)
    assert (code, record["failure"]) == (16, "mismatch")
    entry = exact_entries(record)[0]
    assert (entry["output"], entry["differing"], entry["near_ties"]) == ("indices", 1, None)
    assert record["stages"]["parity"]["detail"]["blame"] == "both"


def test_an_output_whose_dtype_is_not_pytorchs_is_its_own_finding_not_the_references(exact_run, tmp_path):
    def edit(record, folder):
        for case in record["input_cases"]:
            for output in (case["outputs"] or [])[1:]:
                output["dtype"] = "int32"
                save(folder / output["file"], load(folder / output["file"]).astype(np.int32), "label")
    code, record = planted(exact_run, tmp_path, "argmax-dynamo", edit)
    assert (code, record["failure"]) == (16, "mismatch")
    detail = record["stages"]["parity"]["detail"]
    assert detail["dtype_differs"][0] == {"case": "batch-2", "output": "label", "runtime": "int64",
                                          "reference": "int32"}
    assert detail["blame"] == "runtime-or-graph"
    assert "dtype finding" in record["input_cases"][0]["detail"]


@pytest.mark.parametrize("change,problem", [
    (lambda e: e.update(differing=1, near_ties=0), "1 differing element(s) that are not near ties, but its case is a match"),
    (lambda e: e.update(near_ties=3), "near_ties: must be null or an integer 0..0"),
    (lambda e: e.update(dtype="float32"), "dtype: must be an integer or bool dtype"),
    (lambda e: e.update(case="batch-9"), "names no input case"),
])
def test_the_validator_refuses_an_exact_output_entry_its_record_contradicts(exact_run, tmp_path, change, problem):
    record = json.loads(json.dumps(records_by_profile(exact_run[1])["argmax-torchscript"]))
    change(exact_entries(record)[0])
    write_json(tmp_path / "r.json", record)
    done = run_cli("validate", tmp_path / "r.json")
    assert done.returncode == 1 and problem in done.stdout + done.stderr, done.stdout + done.stderr
