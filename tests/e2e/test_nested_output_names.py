"""Nested outputs get stable names (issue "Every model users bring"; doc/profile-files.md, "Outputs"): a module
returning a dict of logits and a tuple of per-layer {key, value} caches, its outputs unnamed in the profile,
is exported and compared output by output under names that are the paths through its output (`logits`,
`past_key_values.0.key`, ...) under both exporters, and reaches `executed`; a plain tuple of tensors keeps
`output_<k>`, as records always had."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

MODELS = REPO / "tests" / "models" / "nested_outputs.py"
EXPORTERS = ("torchscript", "dynamo")
CACHE_NAMES = ["logits", "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key",
               "past_key_values.1.value"]


def profile(name, factory, exporter):
    return {"name": f"{name}-{exporter}", "exporter": exporter, "module": f"{MODELS}:{factory}",
            "inputs": [{"name": "x", "shape": ["batch", 6], "dtype": "float32"}],
            "dims": {"batch": [2, 1, 3]}, "opset": 18}


@pytest.fixture(scope="module")
def nested_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("nested")
    profiles = [profile("cache", "cached_head", e) for e in EXPORTERS] + [profile("pair", "two_tensors", "dynamo")]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=1200)
    return done, json.loads((out / "report.json").read_text())


def case_output_names(record):
    return {c["name"]: [t["name"] for t in c["outputs"]] for c in record["input_cases"] if c["outputs"] is not None}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_nested_output_is_named_by_its_paths_and_executed(nested_run, exporter):
    done, report = nested_run
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(report)[f"cache-{exporter}"]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]
    assert set(map(tuple, case_output_names(record).values())) == {tuple(CACHE_NAMES)}


def test_a_tuple_of_tensors_keeps_output_k(nested_run):
    _, report = nested_run
    record = records_by_profile(report)["pair-dynamo"]
    assert record["status"] == "passed", record["stages"]
    assert set(map(tuple, case_output_names(record).values())) == {("output_0", "output_1")}


def test_a_tuple_holding_a_dict_names_its_top_level_by_output_k(tmp_path):
    worker_models = REPO / "tests" / "models" / "worker_models.py"
    profiles = [{"name": "tuple-dict", "exporter": "torchscript", "module": f"{worker_models}:two_in_two_out",
                 "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"},
                            {"name": "y", "shape": ["batch", 5], "dtype": "float32"}],
                 "dims": {"batch": [2, 3]}, "opset": 18}]
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "profiles.json", profiles),
                   "--output", tmp_path / "report.json", timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(json.loads((tmp_path / "report.json").read_text()))["tuple-dict"]
    assert set(map(tuple, case_output_names(record).values())) == {("output_0", "output_1.prod", "output_1.neg")}
