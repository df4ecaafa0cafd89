"""A factory that cannot be imported is `missing-dependency` in every verb (issues 38 and 42), never `mismatch`:
`run` records it (exit 10); `execute --reference torch` of a passed record whose factory no longer imports exits
10 naming the import; a runtime matrix imports no factory at all, so it carries the run's missing-dependency
record into each runtime unchanged (exit 10) and executes the passed record from its stored outputs even though
its factory no longer imports. One real run of two small module profiles."""
import json

import pytest

from module_support import write_profiles
from support import run_cli_in

MISSING_DEPENDENCY_EXIT = 10
FACTORY = '''import torch

import travel_helper


def make():
    torch.manual_seed(travel_helper.SEED)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
'''
UNIMPORTABLE = "import nnx_no_such_package  # noqa: F401\n\n\ndef make():\n    raise AssertionError('never')\n"


def profile(name, module):
    return {"name": name, "exporter": "torchscript", "module": module,
            "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}], "dims": {"batch": [2]}}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The run's folder and report: `broken` (its factory's import fails) and `tiny` (passes)."""
    folder = tmp_path_factory.mktemp("unimportable")
    (folder / "tiny_model.py").write_text(FACTORY)
    (folder / "travel_helper.py").write_text("SEED = 5\n")
    (folder / "broken_model.py").write_text(UNIMPORTABLE)
    profiles = write_profiles(folder / "profiles.json", [profile("broken", "broken_model.py:make"),
                                                         profile("tiny", "tiny_model.py:make")])
    done = run_cli_in(folder, ["run", "--quiet", "--profile-file", profiles, "--output", "report.json"])
    report = json.loads((folder / "report.json").read_text())
    return folder, report, done


def test_run_records_an_unimportable_factory_as_missing_dependency(run):
    _, report, done = run
    assert done.returncode == MISSING_DEPENDENCY_EXIT, done.stdout + done.stderr
    assert [(r["profile"], r["failure"]) for r in report["profiles"]] == [("broken", "missing-dependency"),
                                                                           ("tiny", None)]
    assert "nnx_no_such_package" in json.dumps(report["profiles"][0]["stages"]["dependencies"]["detail"])


def test_execute_with_the_torch_reference_of_a_factory_that_no_longer_imports_is_missing_dependency(run, tmp_path):
    folder, report, _ = run
    (tmp_path / "tiny.json").write_text(json.dumps(report["profiles"][1]))
    (folder / "travel_helper.py").rename(folder / "travel_helper.py.away")
    try:
        done = run_cli_in(tmp_path, ["execute", "tiny.json", folder / "report-artifacts", "--reference", "torch",
                                     "--output", "again.json"])
    finally:
        (folder / "travel_helper.py.away").rename(folder / "travel_helper.py")
    assert done.returncode == MISSING_DEPENDENCY_EXIT, done.stdout + done.stderr
    assert "missing-dependency" in done.stderr and "travel_helper" in done.stderr, done.stderr
    assert "mismatch" not in done.stderr


def test_a_runtime_matrix_imports_no_factory_and_keeps_the_missing_dependency(run):
    folder, report, _ = run
    (folder / "travel_helper.py").rename(folder / "travel_helper.py.away")  # the passed record's factory breaks
    try:
        done = run_cli_in(folder, ["matrix", "report.json", "report-artifacts", "--output", "matrix.json",
                                   "--jobs", "1", "--onnxruntime-version", "1.32.0"])
    finally:
        (folder / "travel_helper.py.away").rename(folder / "travel_helper.py")
    assert done.returncode == MISSING_DEPENDENCY_EXIT, done.stdout + done.stderr
    (runtime,) = json.loads((folder / "matrix.json").read_text())["runtimes"]
    kept, executed = runtime["records"]
    assert json.dumps(kept) == json.dumps(report["profiles"][0])
    assert executed["status"] == "passed" and executed["stages"]["parity"]["detail"]["reference"] == "stored"
