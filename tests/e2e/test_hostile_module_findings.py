"""Issue 38's smaller findings on module profiles, each refused or contained as a user can act on it: check_module's
name checked by the core's profile-name rule before anything is written, the factory's one rule (the profile
check and the worker's request check accept the same factories: a path with a space and a colon runs; a folder,
a .txt file, a non-ASCII or dotted name, a NUL is a usage error), a factory's SystemExit a plain export-error, an
int32 input's range an int32 cannot hold refused before anything runs, a stored tensor of another shape named with
both shapes. Real torch, the real worker, real ONNX Runtime."""
import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import BUILD, REPO, require_runtime, run_cli
from hostile_support import tree_digest
from module_support import WORKER_MODELS, conv_bn_profile, write_profiles

sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(REPO / "tests" / "models"))

import nnx.export_conformance as ec  # noqa: E402


def check_conv_bn(root, name):
    import torch
    import worker_models

    return ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name=name, exporter="torchscript",
                           root=root)


@pytest.mark.parametrize("name,needle", [
    ("../x", "is not a plain name"),
    ("a\0b", "is not a plain name"),
    (".nnx-modules", "check_module's saved modules"),
    ("x" * 256, "256 bytes long"),
])
def test_check_module_refuses_a_name_that_is_no_profile_name_before_writing(tmp_path, name, needle):
    root = tmp_path / "root"
    (root / ".nnx-modules" / "kept").mkdir(parents=True)
    (root / ".nnx-modules" / "kept" / "factory.py").write_text("# another module's factory\n")
    (tmp_path / "root" / "x").mkdir()
    before = tree_digest(tmp_path)
    with pytest.raises(ec.UsageError, match=needle):
        check_conv_bn(root, name)
    assert tree_digest(tmp_path) == before


def test_check_module_refuses_an_absolute_name_and_leaves_that_folder_alone(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "module.pt").write_text("not yours")
    before = tree_digest(tmp_path)
    with pytest.raises(ec.UsageError, match="is not a plain name"):
        check_conv_bn(tmp_path / "root", str(elsewhere))
    assert tree_digest(tmp_path) == before


def test_a_module_profile_may_not_be_named_as_check_modules_folder(tmp_path):
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(name=".nnx-modules")])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "check_module's saved modules" in done.stderr
    assert not (tmp_path / "out").exists()


def test_check_module_names_a_root_it_cannot_write(tmp_path):
    (tmp_path / "file").write_text("a file, not a folder")
    with pytest.raises(ec.UsageError, match="cannot write the module folder"):
        check_conv_bn(tmp_path / "file" / "root", "mine")


def test_check_module_names_a_read_only_root():
    """sysfs is read-only to every user, root included (a folder's mode bits do not bind root): check_module
    refuses to write its module folder there with a usage error, and nothing is created."""
    with pytest.raises(ec.UsageError, match="cannot write the module folder"):
        check_conv_bn(Path("/sys"), "mine")
    assert not Path("/sys/.nnx-modules").exists()


def factory_files(tmp_path):
    """A real factory file in a folder named with a space and a colon, a .txt copy, a folder named x.py and a
    file whose factory raises SystemExit."""
    odd = tmp_path / "my models: v2"
    odd.mkdir()
    shutil.copyfile(WORKER_MODELS, odd / "models.py")
    shutil.copyfile(WORKER_MODELS, tmp_path / "models.txt")
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "exits.py").write_text("def model():\n    raise SystemExit(3)\n")
    return odd / "models.py"


def run_one(tmp_path, module):
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(module=module)])
    return run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")


def test_a_factory_file_in_a_folder_with_a_space_and_a_colon_runs(tmp_path):
    require_runtime()
    done = run_one(tmp_path, f"{factory_files(tmp_path)}:conv_bn")
    assert done.returncode == 0, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "out" / "report.json").read_text())["profiles"]
    assert record["status"] == "passed"


@pytest.mark.parametrize("module,needle", [
    ("{t}/folder.py:model", "folder.py is a folder, not a Python file"),
    ("{t}/models.txt:conv_bn", "is neither a FILE.py path nor a package.module name"),
    ("{t}/my models: v2/models.py:café", "is not an ASCII Python identifier"),
    ("{t}/my models: v2/models.py:ConvBn.forward", "is not an ASCII Python identifier"),
    ("{t}/my models: v2/mod\0els.py:conv_bn", "holds a NUL character"),
])
def test_a_factory_the_worker_could_not_import_is_refused_before_anything_runs(tmp_path, module, needle):
    factory_files(tmp_path)
    done = run_one(tmp_path, module.format(t=tmp_path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert needle in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_factory_that_raises_system_exit_is_its_profiles_plain_export_error(tmp_path):
    require_runtime()
    factory_files(tmp_path)
    done = run_one(tmp_path, f"{tmp_path / 'exits.py'}:model")
    assert done.returncode == 11, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "out" / "report.json").read_text())["profiles"]
    assert record["stages"]["export"]["detail"]["error"] == "the factory raised SystemExit: 3"


@pytest.mark.parametrize("low,high", [(0, 2**31 + 5), (-2**31 - 1, 3)])
def test_an_int32_range_an_int32_cannot_hold_is_refused_naming_its_bounds(tmp_path, low, high):
    ids = [{"name": "ids", "shape": ["batch", 4], "dtype": "int32", "range": [low, high]}]
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(inputs=ids)])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert (f"inputs[0].range: [{low}, {high}) of the int32 input ids holds values an int32 cannot; int32 holds "
            f"-2147483648..2147483647") in done.stderr
    assert not (tmp_path / "out").exists()


def test_an_int32_range_at_its_bounds_is_accepted(tmp_path):
    ids = [{"name": "ids", "shape": ["batch", 4], "dtype": "int32", "range": [-2**31, 2**31]}]
    assert ec.ModuleProfile("ids", "torchscript", f"{WORKER_MODELS}:conv_bn", ids, {"batch": [2]}).name == "ids"


def test_a_stored_tensor_of_another_shape_is_named_with_both_shapes(tmp_path):
    require_runtime()
    import numpy as np
    from onnx import numpy_helper

    from support import sha256_of

    done = run_one(tmp_path, f"{WORKER_MODELS}:conv_bn")
    assert done.returncode == 0, done.stdout + done.stderr
    report_path = tmp_path / "out" / "report.json"
    report = json.loads(report_path.read_text())
    (record,) = report["profiles"]
    stored = tmp_path / "out" / "report-artifacts" / record["artifacts"]["directory"] / "test_data_set_0" / "input_0.pb"
    stored.write_bytes(numpy_helper.from_array(np.zeros([1, 3, 8, 8], np.float32), "image").SerializeToString())
    for f in record["artifacts"]["files"]:
        if f["path"] == "test_data_set_0/input_0.pb":
            f["bytes"], f["sha256"] = stored.stat().st_size, sha256_of(stored)
    report_path.write_text(json.dumps(report))
    done = run_cli("execute", report_path, tmp_path / "out" / "report-artifacts", "--output", tmp_path / "again.json")
    assert done.returncode != 0, done.stdout + done.stderr
    assert ("the stored tensor test_data_set_0/input_0.pb is image float32 [1, 3, 8, 8], not the record's image "
            "float32 [2, 3, 8, 8]") in (tmp_path / "again.json").read_text()
