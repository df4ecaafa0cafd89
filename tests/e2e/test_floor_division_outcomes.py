"""The tool's own step never blamed on the exporter (issue "Every model users bring"): floor division on float
tensors has no derivative, so the state proof's gradient pass cannot run through it. The proof then runs
without gradients (parameters, buffers and modes), the export detail says so and why, and each exporter gets
its true outcome: the legacy TorchScript exporter's graph differs from PyTorch's floor_divide (mismatch, blamed
on the runtime or graph, never export-error), the dynamo exporter's reaches executed. A module whose backward
runs states no such proof (its records keep their bytes)."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

MODELS = REPO / "tests" / "models" / "floor_division.py"
EXPORTERS = ("torchscript", "dynamo")


@pytest.fixture(scope="module")
def floor_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("floor")
    profiles = [{"name": f"floor-{e}", "exporter": e, "module": f"{MODELS}:floor_divide",
                 "inputs": [{"name": "x", "shape": ["batch", 6], "dtype": "float32"}],
                 "dims": {"batch": [2, 1, 3]}, "opset": 18} for e in EXPORTERS]
    profiles.append({"name": "linear-dynamo", "exporter": "dynamo",
                     "module": f"{REPO / 'tests' / 'models' / 'nested_outputs.py'}:cached_head",
                     "inputs": [{"name": "x", "shape": ["batch", 6], "dtype": "float32"}], "dims": {"batch": [2, 1]}})
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=1200)
    return done, records_by_profile(json.loads((out / "report.json").read_text()))


def test_floor_division_gets_each_exporters_true_outcome(floor_run):
    done, records = floor_run
    assert done.returncode == 16, done.stdout + done.stderr   # the legacy export's mismatch, the run's first failure
    legacy, dynamo = records["floor-torchscript"], records["floor-dynamo"]
    assert (legacy["status"], legacy["failure"]) == ("failed", "mismatch"), legacy["stages"]["export"]
    assert legacy["stages"]["export"]["status"] == "passed"
    assert legacy["stages"]["parity"]["detail"]["blame"] == "runtime-or-graph"
    assert (dynamo["status"], dynamo["level"]) == ("passed", "executed"), dynamo["stages"]


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_the_export_detail_says_the_proof_ran_without_gradients_and_why(floor_run, exporter):
    _, records = floor_run
    proof = records[f"floor-{exporter}"]["stages"]["export"]["detail"]["state_proof"]
    assert proof["gradients"] is False and "floor_divide" in proof["why"]


def test_a_module_whose_backward_runs_states_no_proof(floor_run):
    _, records = floor_run
    assert "state_proof" not in records["linear-dynamo"]["stages"]["export"]["detail"]
