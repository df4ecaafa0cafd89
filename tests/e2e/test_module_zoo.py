"""Module profiles on real models nobody here wrote (tests/models/zoo.py: torchvision's resnet18 and
mobilenet_v3_small, a GRU, a TransformerEncoder, an EmbeddingBag, a two-input/two-output model) and on real
export bugs (a batch baked in through a Python int, a Python branch on the batch, an operator neither
exporter can export), each under both exporters, in one real run: the good ones reach `executed`, each bug
gets the class its failure is; `execute` without Python reproduces every case's errors; the stored tensors
are ONNX's own test-data files."""
import json
import os
import subprocess

import onnx
import onnx.numpy_helper
import pytest

from conftest import run_cli
from module_support import write_profiles, zoo_profiles
from support import records_by_profile

GOOD = ("resnet18", "mobilenet-v3-small", "gru", "transformer-encoder", "embedding-bag", "two-in-two-out")
EXPORTERS = ("torchscript", "dynamo")


@pytest.fixture(scope="module")
def zoo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("zoo")
    profiles = write_profiles(out / "profiles.json", zoo_profiles())
    done = run_cli("run", "--profile-file", profiles, "--output", out / "report.json",
                   "--timings", out / "timings.json", timeout=3000)
    report = json.loads((out / "report.json").read_text())
    return done, report, out


def record_of(zoo_run, name):
    return records_by_profile(zoo_run[1])[name]


@pytest.mark.parametrize("exporter", EXPORTERS)
@pytest.mark.parametrize("model", GOOD)
def test_a_real_model_reaches_executed(zoo_run, model, exporter):
    record = record_of(zoo_run, f"{model}-{exporter}")
    assert record["format"] == "nnx.module-conformance/1"
    assert (record["status"], record["level"], record["failure"]) == ("passed", "executed", None), record["stages"]
    matching = [c for c in record["input_cases"] if c["expect"] == "match"]
    assert [c["dims"]["batch"] for c in matching] == [2, 1, 3]
    assert all(c["outcome"] == "match" and c["max_abs_error"] is not None for c in matching)
    refusals = [c for c in record["input_cases"] if c["expect"] == "rejected"]
    assert refusals and all(c["outcome"] == "rejected" for c in refusals)
    assert record["stages"]["export"]["detail"]["dims_in_graph"] == {"batch": "dynamic"}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_resnet18_is_blamed_for_no_weight_though_batchnorm_is_folded(zoo_run, exporter):
    detail = record_of(zoo_run, f"resnet18-{exporter}")["stages"]["export"]["detail"]
    weights = detail["weights"]
    assert weights["missing"] == []
    transformed = {t["name"] for t in weights["transformed"]}
    assert {"bn1.running_mean", "bn1.running_var", "conv1.weight"} <= transformed
    assert {k["name"] for k in weights["kept"]} == {"fc.weight", "fc.bias"}


@pytest.mark.parametrize("exporter,failure", [("torchscript", "input-contract"), ("dynamo", "input-contract")])
def test_a_batch_baked_in_through_a_python_int_is_refused_beyond_the_export_batch(zoo_run, exporter, failure):
    record = record_of(zoo_run, f"batch-baked-{exporter}")
    assert (record["status"], record["failure"]) == ("failed", failure)
    cases = {c["name"]: c for c in record["input_cases"]}
    assert cases["batch-2"]["outcome"] == "match"
    assert cases["batch-1"]["outcome"] == cases["batch-3"]["outcome"] == "rejected"
    assert "INVALID_ARGUMENT" in cases["batch-1"]["detail"] or "invalid" in cases["batch-1"]["detail"].lower()
    # dynamo silently specialises the batch to the export's 2: the record shows it baked static; TorchScript
    # declares it dynamic but its Reshape holds the 2: the record shows it frozen by that node
    expected = {"torchscript": {"graph": "frozen", "node": "/Reshape", "op": "Reshape", "size": 2},
                "dynamo": "static"}[exporter]
    assert record["stages"]["export"]["detail"]["dims_in_graph"] == {"batch": expected}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_python_branch_on_the_batch_bakes_the_export_branch_and_mismatches(zoo_run, exporter):
    record = record_of(zoo_run, f"shape-branch-{exporter}")
    assert (record["status"], record["failure"]) == ("failed", "mismatch")
    cases = {c["name"]: c for c in record["input_cases"]}
    assert cases["batch-2"]["outcome"] == cases["batch-1"]["outcome"] == "match"
    assert cases["batch-3"]["outcome"] == "mismatch" and cases["batch-3"]["max_abs_error"] > 0.1
    assert record["stages"]["parity"]["detail"]["failed_cases"] == ["batch-3"]
    # the branch batch 3 takes is not in the graph: its weights are missing, which is the blame
    assert record["stages"]["parity"]["detail"]["missing_weights"] == ["big.weight", "big.bias"]
    assert record["stages"]["parity"]["detail"]["blame"] == "weights"


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_an_operator_no_exporter_can_export_is_an_export_error(zoo_run, exporter):
    record = record_of(zoo_run, f"eigh-{exporter}")
    assert (record["status"], record["failure"], record["level"]) == ("failed", "export-error", "none")
    assert "eigh" in json.dumps(record["stages"]["export"]["detail"]).lower()
    assert all(c["outputs"] is None for c in record["input_cases"])
    # The cases' inputs were written before the export (its child reads them there): a failed export leaves
    # none of them behind, so the folder holds nothing its record does not list.
    folder = zoo_run[2] / "report-artifacts" / f"eigh-{exporter}"
    assert folder.is_dir() and sorted(p.name for p in folder.rglob("*.pb")) == []
    assert not any(p.name.startswith(("test_data_set_", "oracle_data_set_", "refusal_cases")) for p in folder.iterdir())


def test_the_run_exits_with_the_first_failing_class_and_the_report_validates(zoo_run):
    done, report, out = zoo_run
    assert done.returncode == 17, done.stderr  # batch-baked's input-contract comes first in profile order
    validated = run_cli("validate", out / "report.json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    verified = run_cli("verify", out / "report.json", out / "report-artifacts")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def executed_only(report):
    profiles = [r for r in report["profiles"] if r["stages"]["check"]["status"] == "passed"]
    return {"format": report["format"], "status": "failed", "profiles": profiles}


def test_execute_without_python_reproduces_every_case_error_exactly(zoo_run, tmp_path):
    _, report, out = zoo_run
    subset = executed_only(report)
    (tmp_path / "r.json").write_text(json.dumps(subset))
    env = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}
    done = run_cli("execute", tmp_path / "r.json", out / "report-artifacts", "--output", tmp_path / "x.json", env=env)
    assert done.returncode in (0, 16, 17), done.stderr
    again = {r["profile"]: r for r in json.loads((tmp_path / "x.json").read_text())["profiles"]}
    for record in subset["profiles"]:
        redone = again[record["profile"]]
        assert redone["stages"]["parity"]["detail"]["reference"] == "stored"
        for before, after in zip(record["input_cases"], redone["input_cases"]):
            assert (after["outcome"], after["max_abs_error"], after["max_rel_error"]) == \
                (before["outcome"], before["max_abs_error"], before["max_rel_error"]), record["profile"]


def test_the_stored_tensors_are_onnx_test_data_that_onnx_reads_back(zoo_run):
    _, report, out = zoo_run
    record = record_of(zoo_run, "two-in-two-out-torchscript")
    folder = out / "report-artifacts" / record["artifacts"]["directory"]
    roles = {f["path"]: f["role"] for f in record["artifacts"]["files"]}
    case = record["input_cases"][1]
    for tensor in case["inputs"] + case["outputs"]:
        loaded = onnx.numpy_helper.to_array(onnx.load_tensor(str(folder / tensor["file"])))
        assert list(loaded.shape) == tensor["shape"]
        assert roles[tensor["file"]] in ("test-input", "test-output")
    assert [t["file"] for t in case["inputs"]] == ["test_data_set_1/input_0.pb", "test_data_set_1/input_1.pb"]
    assert len(case["outputs"]) == 2 and all(o["oracle_file"] for o in case["outputs"])
    refusal = [c for c in record["input_cases"] if c["expect"] == "rejected"][0]
    assert refusal["inputs"][0]["file"].startswith("refusal_cases/")


@pytest.mark.parametrize("role", ["test-input", "test-output"])
def test_a_changed_stored_tensor_is_a_hash_mismatch(zoo_run, tmp_path, role):
    _, report, out = zoo_run
    record = record_of(zoo_run, "gru-torchscript")
    artifacts = tmp_path / "artifacts"
    subprocess.run(["cp", "-r", str(out / "report-artifacts"), str(artifacts)], check=True)
    path = next(f["path"] for f in record["artifacts"]["files"] if f["role"] == role)
    target = artifacts / record["artifacts"]["directory"] / path
    data = bytearray(target.read_bytes())
    data[-1] ^= 0x01
    target.write_bytes(bytes(data))
    (tmp_path / "r.json").write_text(json.dumps(record))
    done = run_cli("execute", tmp_path / "r.json", artifacts, "--output", tmp_path / "x.json",
                   env={"NNX_PYTHON": "/bin/false"})
    assert done.returncode == 14, done.stdout + done.stderr
    redone = json.loads((tmp_path / "x.json").read_text())
    redone = redone["profiles"][0] if "profiles" in redone else redone
    assert redone["failure"] == "hash-mismatch"
    assert any(path in p for p in redone["stages"]["load"]["detail"]["problems"])


def test_the_readme_example_is_the_profile_file_it_names_and_says_what_its_record_shows(zoo_run):
    """README.md's "Check your own model" shows tests/models/resnet18.json; doc/profile-files.md's "Module
    profiles" says what its record shows (the weights the exporter folded)."""
    from conftest import REPO
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Check your own model", 1)[1].split("\n## ", 1)[0]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(example) == json.loads((REPO / "tests" / "models" / "resnet18.json").read_text())
    page = (REPO / "doc" / "profile-files.md").read_text()
    explained = page.split("\n## Module profiles\n", 1)[1].split("\n## ", 1)[0]
    weights = record_of(zoo_run, "resnet18-dynamo")["stages"]["export"]["detail"]["weights"]
    assert "120 entries `transformed`" in explained.replace("\n", " ")
    assert len(weights["transformed"]) == 120 and weights["missing"] == []


STEPS = ["export_module", "export_reference", "export_oracle", "export_gradients", "export_exporter",
         "export_weights", "export_store"]


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_timings_split_a_module_export_into_its_steps_inside_the_export_phase(zoo_run, exporter):
    phases = json.loads((zoo_run[2] / "timings.json").read_text())["phases"]
    mine = [p for p in phases if p["profile"] == f"resnet18-{exporter}"]
    export = next(p for p in mine if p["name"] == "export")
    steps = [p for p in mine if p["name"].startswith("export_")]
    assert [p["name"] for p in steps] == STEPS
    assert all(p["worker"] == export["worker"] and p["seconds"] >= 0 for p in steps)
    assert steps[0]["start_s"] >= export["start_s"] - 1e-6
    for before, after in zip(steps, steps[1:]):
        assert abs(before["start_s"] + before["seconds"] - after["start_s"]) < 1e-6
    assert abs(steps[-1]["start_s"] + steps[-1]["seconds"] - export["start_s"] - export["seconds"]) < 1e-6
    assert sum(p["seconds"] for p in steps) <= export["seconds"]
    assert all(p["seconds"] > 0 for p in steps if p["name"] in ("export_module", "export_exporter")), steps


def test_the_runtime_matrix_runs_module_records_without_python_and_measures_their_drift(zoo_run, tmp_path):
    from support import runtime_library
    _, report, out = zoo_run
    subset = {"format": report["format"], "status": "passed",
              "profiles": [record_of(zoo_run, "resnet18-torchscript"), record_of(zoo_run, "two-in-two-out-dynamo")]}
    (tmp_path / "r.json").write_text(json.dumps(subset))
    done = run_cli("matrix", tmp_path / "r.json", out / "report-artifacts", "--output", tmp_path / "m.json",
                   "--onnxruntime", runtime_library("1.20.1"), "--onnxruntime", runtime_library("1.32.0"),
                   env={"NNX_PYTHON": "/bin/false"})
    assert done.returncode == 0, done.stdout + done.stderr
    matrix = json.loads((tmp_path / "m.json").read_text())
    assert [r["status"] for r in matrix["runtimes"]] == ["passed", "passed"]
    drifted = {(c["profile"], c["case"]) for c in matrix["drift"]["cases"]}
    assert ("resnet18-torchscript", "batch-1") in drifted
    two = record_of(zoo_run, "two-in-two-out-dynamo")
    names = [o["name"] for o in two["input_cases"][0]["outputs"]]
    assert {("two-in-two-out-dynamo", f"batch-1/{n}") for n in names} <= drifted  # one entry per output
    assert matrix["drift"]["beyond_tolerance"] == []
