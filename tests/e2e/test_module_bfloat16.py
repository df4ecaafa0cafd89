"""A model with bfloat16 weights gets its true class (issue 39): the export's state proof and weights reading
handle bfloat16 (numpy has none), the exporters export it, and ONNX Runtime's CPU provider, which has no
bfloat16 Gemm, refuses the session: load-error, not a crash of the worker's child recorded as export-error."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

FACTORY = f"{REPO / 'tests' / 'models' / 'bfloat16_model.py'}:bfloat16_linear"
EXPORTERS = ("torchscript", "dynamo")


@pytest.fixture(scope="module")
def bfloat16_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bf16")
    profiles = [{"name": f"bfloat16-linear-{e}", "exporter": e, "module": FACTORY,
                 "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}],
                 "dims": {"batch": [2, 1]}, "outputs": ["y"], "opset": 18} for e in EXPORTERS]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=900)
    return done, records_by_profile(json.loads((out / "report.json").read_text()))


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_bfloat16_model_without_a_cpu_kernel_is_a_load_error(bfloat16_run, exporter):
    done, records = bfloat16_run
    assert done.returncode == 15, done.stdout + done.stderr
    record = records[f"bfloat16-linear-{exporter}"]
    assert (record["status"], record["failure"], record["level"]) == ("failed", "load-error", "structural")
    export = record["stages"]["export"]
    assert export["status"] == "passed", export
    assert {k["name"] for k in export["detail"]["weights"]["kept"]} == {"linear.weight", "linear.bias"}
    assert not any("not classified" in w for w in export["detail"]["warnings"])
    assert record["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    load = record["stages"]["load"]["detail"]
    assert load["code"] == "NOT_IMPLEMENTED" and "Gemm" in load["error"], load
