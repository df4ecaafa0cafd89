"""Localisation from Python (doc/python-api.md, doc/localisation.md): `run_profile(..., localize=...)`,
`run_profiles` and `execute(..., localize=True)` over the core's one localisation, on a real module exported
for real: a passing record localised on request says no value departs, with its coverage; a mismatch is
localised by default and not with localize=False; execute's localize implies the torch reference."""
import json
import sys

import pytest

from conftest import BUILD, require_runtime
from localisation_support import BLOCK, CNN, edited_profile, export_edited, localisation_of

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as nnx  # noqa: E402


def module_profile(folder, name):
    (folder / "block.py").write_text(BLOCK)
    return nnx.ModuleProfile(name=name, module=f"{folder / 'block.py'}:make", exporter="dynamo",
                             inputs=[{"name": "x", "shape": ["batch", 5, 16]}], dims={"batch": [2, 1]})


def test_run_profile_localize_true_localises_a_passing_record(tmp_path):
    require_runtime()
    record = nnx.run_profile(module_profile(tmp_path, "block"), tmp_path / "art", localize=True)
    assert record["status"] == "passed"
    found = localisation_of(record)
    assert found["status"] == "no-departure" and found["first_departing"] is None
    assert found["coverage"]["granularity"] == "node" and found["coverage"]["aligned"] > 20
    again = nnx.execute(record, tmp_path / "art", localize=True)
    assert localisation_of(again)["status"] == "no-departure"
    assert again["versions"]["reference"] == "torch"  # localize implies the torch reference


def test_a_mismatch_is_localised_by_default_and_not_with_localize_false(tmp_path):
    require_runtime()
    export_edited(tmp_path / "cnn", CNN, "make", "2,3,8,8", "sigmoid")
    path = tmp_path / "p.json"
    path.write_text(json.dumps([edited_profile(tmp_path / "cnn", "cnn", "make", {"batch": [2]})]))
    profile = nnx.load_profiles(path)[0]
    record = nnx.run_profile(profile, tmp_path / "a")
    assert localisation_of(record)["first_departing"]["node"] == "node_relu_1"
    quiet = nnx.run_profile(profile, tmp_path / "b", localize=False)
    assert quiet["failure"] == "mismatch" and "localisation" not in quiet["stages"]["parity"]["detail"]
    assert not any(f["role"] == "repro" for f in quiet["artifacts"]["files"])


def test_localize_takes_only_a_bool_and_execute_refuses_another_reference(tmp_path):
    require_runtime()
    with pytest.raises(nnx.ArgumentError, match="localize must be True, False or None, not str"):
        nnx.run_profile("feedfwd-fp32-torchscript", tmp_path / "x", localize="yes")
    record = nnx.run_profile(module_profile(tmp_path, "block"), tmp_path / "art", localize=False)
    with pytest.raises(nnx.UsageError, match="--localize compares ONNX Runtime with PyTorch's intermediate values"):
        nnx.execute(record, tmp_path / "art", localize=True, reference="stored")


def test_assert_conformant_names_the_first_departing_node(tmp_path):
    require_runtime()
    export_edited(tmp_path / "cnn", CNN, "make", "2,3,8,8", "sigmoid")
    with pytest.raises(AssertionError, match="cause: ONNX Runtime first departs from PyTorch at Sigmoid node "
                                             "'node_relu_1'") as raised:
        nnx.assert_conformant(edited_profile(tmp_path / "cnn", "cnn", "make", {"batch": [2]}), tmp_path / "art")
    assert localisation_of(raised.value.record)["first_departing"]["rerun"]["verdict"] == "introduces"


def test_execute_localises_a_data_only_record_against_the_reference_evaluator_and_keeps_its_reference(tmp_path):
    require_runtime()
    from test_localisation_data_only import overflowing_sum
    overflowing_sum(tmp_path / "overflow")
    profile = nnx.OnnxFileProfile(name="overflow", onnx=str(tmp_path / "overflow" / "model.onnx"),
                                  data=str(tmp_path / "overflow"), rtol=0, atol=0)
    record = nnx.run_profile(profile, tmp_path / "art", localize=False)
    assert "localisation" not in record["stages"]["parity"]["detail"]
    again = nnx.execute(record, tmp_path / "art", localize=True)
    found = localisation_of(again)
    assert found["coverage"]["reference"] == "ONNX's reference evaluator"
    assert (found["first_departing"]["node"], found["first_departing"]["rerun"]["verdict"]) == ("sum", "introduces")
    assert again["versions"]["reference"] == "stored"  # no module to rebuild: no torch reference implied
