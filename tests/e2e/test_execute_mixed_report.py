"""`execute` of a report mixing a failed export with a pass (issue 39): the record that cannot be executed
(its check did not pass: no artifacts) is kept byte for byte, the other is executed again, the report is
written and validates, and the exit code is the first failed record's, as `run`'s. The same through Python's
`execute`, which returns the whole report, and through a runtime matrix, which carries the failed record into
each runtime's records unchanged. One record alone whose check did not pass is still refused.

The export fails for real: torch.linalg.eigh (tests/models/zoo.py:eigh), which the legacy exporter cannot
export; the pass is tests/models/worker_models.py:conv_bn.
"""
import json
import sys

import pytest

from conftest import BUILD, REPO
from module_support import conv_bn_profile, write_profiles
from support import run_cli_in, write_json

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

EIGH = {"name": "eigh", "exporter": "torchscript", "module": f"{REPO / 'tests' / 'models' / 'zoo.py'}:eigh",
        "inputs": [{"name": "x", "shape": ["batch", 4, 4], "dtype": "float32"}], "dims": {"batch": [2]}}
EXPORT_ERROR_EXIT = 11


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A real run of a failing and a passing module profile: its folder and its report."""
    folder = tmp_path_factory.mktemp("mixed")
    profiles = write_profiles(folder / "profiles.json", [EIGH, conv_bn_profile(dims={"batch": [2]})])
    done = run_cli_in(folder, ["run", "--quiet", "--profile-file", profiles, "--output", "report.json"])
    report = json.loads((folder / "report.json").read_text())
    assert [(r["profile"], r["failure"]) for r in report["profiles"]] == [("eigh", "export-error"),
                                                                           ("conv-bn", None)], done.stderr
    assert done.returncode == EXPORT_ERROR_EXIT
    return folder, report


def test_execute_of_a_mixed_report_keeps_the_failed_record_and_executes_the_other(mixed):
    folder, report = mixed
    done = run_cli_in(folder, ["execute", "report.json", "report-artifacts", "--output", "again.json"])
    assert done.returncode == EXPORT_ERROR_EXIT, done.stderr
    again = json.loads((folder / "again.json").read_text())
    assert again["status"] == "failed"
    kept, executed = again["profiles"]
    assert json.dumps(kept) == json.dumps(report["profiles"][0])  # byte for byte, key order too
    assert executed["profile"] == "conv-bn" and executed["status"] == "passed"
    assert executed["versions"]["executed_by"].startswith("nnx-conformance execute")
    assert "executed_by" not in report["profiles"][1]["versions"]
    validated = run_cli_in(folder, ["validate", "again.json"])
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_python_execute_of_a_mixed_report_returns_the_whole_report(mixed):
    folder, report = mixed
    again = ec.execute(folder / "report.json", folder / "report-artifacts")
    assert [r["profile"] for r in again["profiles"]] == ["eigh", "conv-bn"]
    assert again["profiles"][0] == report["profiles"][0]
    assert again["profiles"][1]["status"] == "passed"
    assert "executed_by" in again["profiles"][1]["versions"]
    assert ec.exit_code(again) == EXPORT_ERROR_EXIT


def test_execute_and_matrix_of_one_record_whose_check_did_not_pass_are_still_refused(mixed):
    folder, report = mixed
    write_json(folder / "eigh.json", report["profiles"][0])
    done = run_cli_in(folder, ["execute", "eigh.json", "report-artifacts", "--output", "eigh-again.json"])
    assert done.returncode == 1
    assert "its check stage did not pass, so no artifacts were recorded" in done.stderr
    assert not (folder / "eigh-again.json").exists()
    done = run_cli_in(folder, ["matrix", "eigh.json", "report-artifacts", "--output", "eigh-matrix.json",
                               "--onnxruntime-version", "1.32.0"])
    assert done.returncode == 1 and "its check stage did not pass" in done.stderr, done.stderr
    assert not (folder / "eigh-matrix.json").exists()


def test_a_runtime_matrix_of_a_mixed_report_carries_the_failed_record_into_each_runtime(mixed):
    folder, report = mixed
    done = run_cli_in(folder, ["matrix", "report.json", "report-artifacts", "--output", "matrix.json", "--jobs", "1",
                               "--onnxruntime-version", "1.24.4", "--onnxruntime-version", "1.32.0"])
    assert done.returncode == EXPORT_ERROR_EXIT, done.stderr
    matrix = json.loads((folder / "matrix.json").read_text())
    assert [runtime["version"] for runtime in matrix["runtimes"]] == ["1.24.4", "1.32.0"]
    for runtime in matrix["runtimes"]:
        kept, executed = runtime["records"]
        assert json.dumps(kept) == json.dumps(report["profiles"][0])
        assert executed["status"] == "passed" and executed["runtime"]["version"] == runtime["version"]
    validated = run_cli_in(folder, ["validate", "matrix.json"])
    assert validated.returncode == 0, validated.stdout + validated.stderr
