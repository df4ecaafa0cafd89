"""The ONNX-file kind through the Python API (issue "One pipeline for every model kind": one Python profile
family): OnnxFileProfile made, checked by the core and run; load_profiles gives each entry of a profile file the
class of its kind (the core decides the kind); run_profiles takes the list. Real files written by a script of
the test's own (tests/e2e/onnx_file_support.py), real torch for the factory check, real ONNX Runtime."""
import json
import sys

import pytest

from conftest import BUILD
from onnx_file_support import export_own_file, factory_profile, onnx_profile, write_profiles

sys.path.insert(0, str(BUILD / "python"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402


@pytest.fixture(scope="module")
def own_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("own")
    export_own_file(folder)
    return folder


def test_an_onnx_file_profile_runs_from_python_to_executed(own_file, tmp_path):
    profile = ec.OnnxFileProfile("mine", onnx=str(own_file / "model.onnx"), data=str(own_file / "data"))
    assert profile.to_json() == {"name": "mine", "onnx": str(own_file / "model.onnx"), "data": str(own_file / "data")}
    assert nnx.OnnxFileProfile is ec.OnnxFileProfile and "OnnxFileProfile" in ec.__all__
    record = ec.run_profile(profile, tmp_path)
    assert record["format"] == "nnx.model-conformance/1", record["format"]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]
    assert record["model"]["onnx"] == str(own_file / "model.onnx")


def test_load_profiles_gives_each_kind_its_class_and_run_profiles_takes_them(own_file, tmp_path):
    path = write_profiles(tmp_path / "profiles.json",
                          onnx_profile(own_file) + factory_profile(own_file, own_file / "model.onnx"))
    loaded = ec.load_profiles(path)
    assert [type(p) for p in loaded] == [ec.OnnxFileProfile, ec.OnnxFileProfile], loaded
    assert loaded[1].module == f"{own_file / 'net.py'}:make" and loaded[1].bind == {"input.1": "x"}
    report = ec.run_profiles(tmp_path / "out", loaded)
    assert [(r["profile"], r["status"], r["level"]) for r in report["profiles"]] == [
        ("mine", "passed", "executed"), ("vs-module", "passed", "executed")], json.dumps(report)[:2000]


def test_a_misspelled_key_is_the_cores_usage_error_with_its_suggestion(own_file):
    entry = {"name": "mine", "onnx": str(own_file / "model.onnx"), "data": str(own_file / "data"), "tolerance": 1}
    with pytest.raises(ec.UsageError) as caught:
        ec.OnnxFileProfile.from_json(entry)
    assert "tolerance" in str(caught.value) and "did you mean" in str(caught.value), str(caught.value)


def test_a_file_that_does_not_exist_is_refused_when_the_profile_is_made(tmp_path):
    with pytest.raises(ec.UsageError) as caught:
        ec.OnnxFileProfile("gone", onnx=str(tmp_path / "nothing.onnx"), data=str(tmp_path))
    assert "nothing.onnx" in str(caught.value), str(caught.value)
