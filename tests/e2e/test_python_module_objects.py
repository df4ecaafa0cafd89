"""The Python API takes what users have (issue 42): an nn.Module, or a callable of no argument returning one,
where a factory string goes (ModuleProfile, a module profile dict handed to run_profile or run_profiles) is saved
under the run's root as check_module saves it and runs as that factory; anything else is refused naming
check_module, before anything is written. Real runs of tests/models/worker_models.py's conv_bn module."""
import sys

import pytest

from conftest import BUILD, REPO, require_runtime

sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(REPO / "tests" / "models"))

import nnx.export_conformance as ec  # noqa: E402

IMAGE = [{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32"}]


def conv_bn_module():
    import worker_models

    return worker_models.conv_bn()


def test_a_module_profile_given_an_nn_module_reaches_executed(tmp_path):
    require_runtime()
    profile = ec.ModuleProfile("object", "torchscript", conv_bn_module(), inputs=IMAGE, dims={"batch": [2, 1]})
    record = ec.run_profile(profile, tmp_path / "root")
    assert (record["status"], record["level"]) == ("passed", "executed"), ec.summary_lines({"profiles": [record]})
    saved = tmp_path / "root" / ".nnx-modules" / "object"
    assert record["module"]["factory"] == f"{saved / 'factory.py'}:load"
    assert record["module"]["class"] == "worker_models.ConvBn"
    listed = {f["path"] for f in record["artifacts"]["files"]}
    assert {"factory/factory.py", "factory/module.pt"} <= listed
    ec.verify_artifacts(record, tmp_path / "root")


def test_run_profile_given_a_dict_with_a_callable_of_no_argument_reaches_executed(tmp_path):
    require_runtime()
    import worker_models

    record = ec.run_profile({"name": "callable", "exporter": "torchscript", "module": worker_models.conv_bn,
                             "inputs": IMAGE, "dims": {"batch": [2]}}, tmp_path / "root")
    assert (record["status"], record["level"]) == ("passed", "executed"), ec.summary_lines({"profiles": [record]})
    assert (tmp_path / "root" / ".nnx-modules" / "callable" / "module.pt").is_file()


def needs_an_argument(width):
    return width


@pytest.mark.parametrize("module, words", [
    (needs_an_argument, "the callable needs_an_argument needs arguments"),
    (3, "module: must be FILE.py:FACTORY, package.module:FACTORY, an nn.Module or a callable of no argument"),
])
def test_what_cannot_stand_for_a_factory_is_refused_naming_check_module_before_anything_is_written(tmp_path, module,
                                                                                                    words):
    with pytest.raises(ec.UsageError) as raised:
        ec.ModuleProfile("bad", "torchscript", module, inputs=IMAGE, dims={"batch": [2]})
    assert words in str(raised.value) and "check_module" in str(raised.value), raised.value
    with pytest.raises(ec.UsageError, match="check_module"):
        ec.run_profile({"name": "bad", "exporter": "torchscript", "module": module, "inputs": IMAGE,
                        "dims": {"batch": [2]}}, tmp_path / "root")
    assert not (tmp_path / "root").exists()


def test_a_profile_holding_a_module_object_has_no_profile_file_form_until_it_runs(tmp_path):
    profile = ec.ModuleProfile("object", "torchscript", conv_bn_module(), inputs=IMAGE, dims={"batch": [2]})
    with pytest.raises(ec.UsageError, match="holds a module object.*check_module"):
        profile.to_json()
    assert "torch" in profile.requires and hash(profile) == hash(profile)
