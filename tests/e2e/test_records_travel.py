"""Records that travel (issues 38 and 42, "One path rule", "Records that travel"): a module profile's factory path
is relative to the profile file's folder, whatever the current folder; the record states it relative to the
report's folder; the factory's file is copied into the profile's hash-listed artifacts, so that a report moved
to another folder, its factory's folder gone, still executes with `--reference torch` (from the copy, hash-checked
before the import). One real run of a tiny module profile started from a third folder; and check_module's
saved module, which travels with its generated factory."""
import hashlib
import json
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, CLI, REPO, require_runtime

FACTORY = '''"""A tiny module for tests/e2e/test_records_travel.py."""
import torch


def make():
    torch.manual_seed(3)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
'''
PROFILE = {"name": "tiny", "exporter": "torchscript", "module": "tiny_model.py:make",
           "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}], "dims": {"batch": [2, 3]}}


def cli(*args, cwd):
    return subprocess.run([str(CLI), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def travelled(tmp_path_factory):
    """(the run's CompletedProcess, its report folder, the profile folder): profiles/ holds the factory and the
    profile file, the run starts in elsewhere/ and writes out/report.json and out/report-artifacts/."""
    require_runtime()
    base = tmp_path_factory.mktemp("travel")
    for folder in ("profiles", "elsewhere", "out"):
        (base / folder).mkdir()
    (base / "profiles" / "tiny_model.py").write_text(FACTORY)
    (base / "profiles" / "profiles.json").write_text(json.dumps([PROFILE]))
    done = cli("run", "--profile-file", base / "profiles" / "profiles.json", "--output", base / "out" / "report.json",
               cwd=base / "elsewhere")
    return done, base / "out", base / "profiles"


def record_of(report_folder):
    return json.loads((report_folder / "report.json").read_text())["profiles"][0]


def test_a_profile_file_run_from_another_folder_finds_its_factory_beside_it(travelled):
    done, out, _ = travelled
    assert done.returncode == 0, done.stdout + done.stderr
    assert record_of(out)["status"] == "passed"


def test_the_record_states_the_factory_relative_to_the_report_and_lists_its_copy(travelled):
    done, out, profiles = travelled
    assert done.returncode == 0, done.stdout + done.stderr
    record = record_of(out)
    assert record["module"]["factory"] == "../profiles/tiny_model.py:make"
    digest = hashlib.sha256((profiles / "tiny_model.py").read_bytes()).hexdigest()
    assert record["module"]["source_sha256"] == digest
    listed = {f["path"]: f for f in record["artifacts"]["files"]}
    assert listed["factory/tiny_model.py"]["sha256"] == digest
    assert (out / "report-artifacts" / "tiny" / "factory" / "tiny_model.py").read_text() == FACTORY


@pytest.fixture
def moved(travelled, tmp_path):
    """The report and its artifacts moved two folders down elsewhere, the factory's own folder gone."""
    done, out, profiles = travelled
    assert done.returncode == 0, done.stdout + done.stderr
    target = tmp_path / "far" / "away"
    shutil.copytree(out, target)
    hidden = tmp_path / "hidden"
    shutil.move(str(profiles), hidden)  # restored afterwards: the fixture above is shared
    yield target
    shutil.move(str(hidden), profiles)


def test_a_moved_report_executes_with_the_torch_reference_from_its_factory_copy(moved, tmp_path):
    done = cli("execute", moved / "report.json", moved / "report-artifacts", "--reference", "torch",
               "--output", tmp_path / "again.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    copy = moved / "report-artifacts" / "tiny" / "factory" / "tiny_model.py"
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert f"importing {copy} (sha256 {digest})" in done.stderr, done.stderr
    record = json.loads((tmp_path / "again.json").read_text())["profiles"][0]
    assert record["status"] == "passed"
    detail = record["stages"]["parity"]["detail"]
    assert detail["reference"] == "torch"
    assert detail["factory_run"] == {"factory": "../profiles/tiny_model.py:make", "file": str(copy), "sha256": digest}


def test_a_moved_report_whose_factory_copy_was_edited_is_refused_before_the_import(moved, tmp_path):
    copy = moved / "report-artifacts" / "tiny" / "factory" / "tiny_model.py"
    copy.write_text(FACTORY + "raise SystemExit('imported')\n")
    done = cli("execute", moved / "report.json", moved / "report-artifacts", "--reference", "torch", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert str(copy) in done.stderr and "not imported" in done.stderr, done.stderr
    assert "importing" not in done.stderr


def test_a_check_module_record_executes_with_the_torch_reference_after_its_saved_module_is_gone(tmp_path):
    """check_module's module.pt travels with its generated factory: the saved folder removed, the record's
    copies of both in its artifacts rebuild the module."""
    require_runtime()
    sys.path.insert(0, str(BUILD / "python"))
    sys.path.insert(0, str(REPO / "tests" / "models"))
    import torch
    import worker_models

    import nnx.export_conformance as ec

    root = tmp_path / "root"
    record = ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name="saved", exporter="torchscript",
                             root=root)
    assert {"factory/factory.py", "factory/module.pt"} <= {f["path"] for f in record["artifacts"]["files"]}
    shutil.rmtree(root / ".nnx-modules")
    again = ec.execute(record, root, reference="torch")
    assert again["status"] == "passed", ec.summary_lines({"profiles": [again]})
    assert again["stages"]["parity"]["detail"]["factory_run"]["file"] == str(root / "saved" / "factory" / "factory.py")


def test_an_imported_onnx_files_profile_file_names_its_paths_relative_to_itself_too(tmp_path):
    """The one path rule for every path a profile names: an imported file's `onnx` and `data`, given relative in
    a profile file beside them, are found from any current folder."""
    require_runtime()
    from onnx_file_support import export_own_file

    export_own_file(tmp_path / "mine")
    (tmp_path / "mine" / "profiles.json").write_text(json.dumps([{"name": "mine", "onnx": "model.onnx",
                                                                   "data": "data"}]))
    (tmp_path / "elsewhere").mkdir()
    done = cli("run", "--profile-file", tmp_path / "mine" / "profiles.json", "--output", tmp_path / "out" / "r.json",
               cwd=tmp_path / "elsewhere")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((tmp_path / "out" / "r.json").read_text())["profiles"][0]
    assert (record["status"], record["model"]["onnx"]) == ("passed", str(tmp_path / "mine" / "model.onnx"))
