"""Half-precision and 8-bit outputs (doc/record-format.md §10, "Half-precision outputs"): a model returning
float16 scores and uint8 levels (tests/models/half_models.py) reaches `executed` under both exporters; the
float16 output is judged under the profile's tolerance widened to float16's epsilon, which the record states;
the uint8 output compares exactly; `execute` without Python reads the stored float16 and uint8 test data back
and reproduces every case; the validator refuses a stated tolerance that is not the rule's."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile, write_json

FACTORY = f"{REPO / 'tests' / 'models' / 'half_models.py'}:half_head"
EXPORTERS = ("torchscript", "dynamo")
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}


@pytest.fixture(scope="module")
def half_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("half")
    profiles = [{"name": f"half-head-{e}", "exporter": e, "module": FACTORY,
                 "inputs": [{"name": "x", "shape": ["batch", 8], "dtype": "float32"}],
                 "dims": {"batch": [2, 1, 3]}, "outputs": ["scores", "levels"], "opset": 18} for e in EXPORTERS]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=900)
    return done, json.loads((out / "report.json").read_text()), out


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_float16_and_uint8_output_model_reaches_executed_under_its_stated_tolerance(half_run, exporter):
    done, report, _ = half_run
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(report)[f"half-head-{exporter}"]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]
    outputs = record["input_cases"][0]["outputs"]
    assert [(o["name"], o["dtype"]) for o in outputs] == [("scores", "float16"), ("levels", "uint8")]
    detail = record["stages"]["parity"]["detail"]
    assert detail["dtype_tolerances"] == [{"output": "scores", "dtype": "float16", "rtol": 0.0009765625,
                                           "atol": 0.0009765625}]
    assert {(e["output"], e["dtype"], e["differing"]) for e in detail["exact_outputs"]} == {("levels", "uint8", 0)}


def test_execute_without_python_reads_half_and_uint8_test_data_back(half_run, tmp_path):
    _, report, out = half_run
    done = run_cli("execute", out / "report.json", out / "report-artifacts", "--output", tmp_path / "x.json",
                   env=NO_PYTHON)
    assert done.returncode == 0, done.stdout + done.stderr
    again = records_by_profile(json.loads((tmp_path / "x.json").read_text()))
    for name, record in records_by_profile(report).items():
        assert [(c["outcome"], c["max_abs_error"]) for c in again[name]["input_cases"]] == \
            [(c["outcome"], c["max_abs_error"]) for c in record["input_cases"]]


def test_the_validator_refuses_a_half_tolerance_that_is_not_the_rules(half_run, tmp_path):
    record = json.loads(json.dumps(records_by_profile(half_run[1])["half-head-torchscript"]))
    record["stages"]["parity"]["detail"]["dtype_tolerances"][0]["atol"] = 1e-5
    write_json(tmp_path / "r.json", record)
    done = run_cli("validate", tmp_path / "r.json")
    assert done.returncode == 1 and "widened to the float16 epsilon" in done.stdout + done.stderr, done.stdout


def test_a_complex_output_is_refused_naming_the_way_out():
    import sys

    import torch

    sys.path.insert(0, str(REPO / "worker"))
    from nnx_worker_tensors import WireError, from_torch

    with pytest.raises(WireError, match=r"complex64, which the wire cannot carry .*torch\.view_as_real\(z\)"):
        from_torch("z", torch.zeros(2, dtype=torch.complex64))
