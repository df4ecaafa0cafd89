"""Executing someone else's module record runs none of its code unless asked, and hides no record (issue 38,
"Code run unasked", "A failure hidden"). A real run of two small module profiles whose factory file, on every
import, appends a line to imported.log beside it and imports a sibling helper file; then:
- Python `execute` of the report (what `json.load` of its file gives) imports no factory and returns the whole
  report, every record compared with its stored outputs; with the second profile's artifacts tampered it
  returns both records and the failure;
- `execute --reference torch` refuses a factory file edited after the run before importing it, naming the
  file and both digests; run from another current folder it finds the factory beside the report, says on
  stderr which file it runs and states in the parity detail what ran; a factory whose import fails (its
  helper gone, its own bytes the record's) is missing-dependency, exit 10."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, CLI, require_runtime

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

FACTORY = '''"""A tiny module whose import leaves a trace beside it (tests/e2e/test_execute_runs_no_code_unasked.py)."""
import os

import torch

import no_code_helper

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "imported.log"), "a") as trace:
    trace.write("imported\\n")


def make():
    torch.manual_seed(no_code_helper.SEED)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
'''
HELPER = "SEED = 7\n"


def profile(name):
    return {"name": name, "exporter": "torchscript", "module": "tiny_model.py:make",
            "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}], "dims": {"batch": [2, 3]}}


@pytest.fixture(scope="module")
def module_run(tmp_path_factory):
    """A folder holding tiny_model.py, its helper, profiles.json, report.json and report-artifacts/, made by a
    run started in that folder (so the record's relative factory is relative to the report's folder)."""
    require_runtime()
    folder = tmp_path_factory.mktemp("module-run")
    (folder / "tiny_model.py").write_text(FACTORY)
    (folder / "no_code_helper.py").write_text(HELPER)
    (folder / "profiles.json").write_text(json.dumps([profile("tiny-a"), profile("tiny-b")]))
    done = subprocess.run([str(CLI), "run", "--profile-file", "profiles.json", "--output", "report.json"],
                          cwd=folder, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "imported.log").exists(), "the run itself imports the factory"
    (folder / "imported.log").unlink()
    return folder


@pytest.fixture
def copy(module_run, tmp_path):
    """A private copy of the run's folder (nothing imported in it yet)."""
    target = tmp_path / "copy"
    shutil.copytree(module_run, target, symlinks=True)
    return target


def report_of(folder):
    return json.loads((folder / "report.json").read_text())


def execute_cli(folder, *flags, cwd=None):
    return subprocess.run([str(CLI), "execute", str(folder / "report.json"), str(folder / "report-artifacts"),
                           *flags], cwd=cwd, capture_output=True, text=True, timeout=900)


def test_python_execute_of_a_report_imports_no_factory_and_returns_every_record(copy, monkeypatch):
    monkeypatch.chdir(copy)  # where the record's relative factory would be found, were it imported
    again = ec.execute(report_of(copy), copy / "report-artifacts")
    assert not (copy / "imported.log").exists(), "a factory was imported without being asked"
    assert again["status"] == "passed", ec.summary_lines(again)
    assert [r["profile"] for r in again["profiles"]] == ["tiny-a", "tiny-b"]
    assert all(r["stages"]["parity"]["detail"]["reference"] == "stored" for r in again["profiles"])
    assert all(r["versions"]["reference"] == "stored" for r in again["profiles"])


def test_python_execute_of_a_report_with_its_second_profile_tampered_returns_both_and_the_failure(copy, monkeypatch):
    monkeypatch.chdir(copy)
    model = copy / "report-artifacts" / "tiny-b" / "model.onnx"
    model.write_bytes(model.read_bytes() + b"\0")
    again = ec.execute(report_of(copy), copy / "report-artifacts")
    assert again["status"] == "failed"
    assert [(r["profile"], r["failure"]) for r in again["profiles"]] == [("tiny-a", None), ("tiny-b", "hash-mismatch")]
    assert ec.exit_code(again) == 14
    assert not (copy / "imported.log").exists()


def test_reference_torch_refuses_a_factory_edited_after_the_run_before_importing_it(copy):
    recorded = report_of(copy)["profiles"][0]["module"]["source_sha256"]
    factory = copy / "tiny_model.py"
    factory.write_text(FACTORY + "# edited after the run\n")
    done = execute_cli(copy, "--reference", "torch", cwd=copy)  # where main's code looked
    assert done.returncode == 1, done.stdout + done.stderr
    assert not (copy / "imported.log").exists(), "the edited factory was imported"
    now = hashlib.sha256(factory.read_bytes()).hexdigest()
    assert str(factory) in done.stderr and recorded in done.stderr and now in done.stderr, done.stderr
    assert "not imported" in done.stderr and "Restore the file" in done.stderr


def test_reference_torch_from_another_folder_finds_the_factory_beside_the_report_and_says_what_ran(copy, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = execute_cli(copy, "--reference", "torch", "--output", tmp_path / "again.json", cwd=elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    factory = copy / "tiny_model.py"
    digest = hashlib.sha256(factory.read_bytes()).hexdigest()
    assert f"importing {factory} (sha256 {digest})" in done.stderr, done.stderr
    assert (copy / "imported.log").exists(), "asked for torch, the factory beside the report ran"
    again = json.loads((tmp_path / "again.json").read_text())
    for record in again["profiles"]:
        detail = record["stages"]["parity"]["detail"]
        assert detail["reference"] == "torch"
        assert detail["factory_run"] == {"factory": "tiny_model.py:make", "file": str(factory), "sha256": digest}
        assert record["module"]["source_sha256"] == digest


def test_reference_torch_of_a_factory_that_does_not_import_is_missing_dependency(copy):
    (copy / "no_code_helper.py").unlink()  # the factory's own bytes are still the record's
    done = execute_cli(copy, "--reference", "torch", cwd=copy)  # where main's code looked
    assert done.returncode == 10, done.stdout + done.stderr
    assert "missing-dependency" in done.stderr and "does not import" in done.stderr, done.stderr
    assert "no_code_helper" in done.stderr
    assert not (copy / "imported.log").exists()


def test_python_reference_torch_of_a_report_file_resolves_its_factory_beside_it(copy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    again = ec.execute(copy / "report.json", copy / "report-artifacts", reference="torch")
    assert again["status"] == "passed", ec.summary_lines(again)
    assert [r["stages"]["parity"]["detail"]["reference"] for r in again["profiles"]] == ["torch", "torch"]
    # Handed over without its file, the report's records import their factory's copy in the artifacts
    # (tests/e2e/test_records_travel.py); only the factory's own file travels, so its sibling helper is missing.
    with pytest.raises(ec.RuntimeUnavailable, match="no_code_helper"):
        ec.execute(report_of(copy), copy / "report-artifacts", reference="torch")
