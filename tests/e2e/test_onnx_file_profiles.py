"""The third model kind, your own ONNX file (doc/record-format.md §11; doc/profile-files.md, "Your own ONNX
file"): a file exported by a script of the test's own, checked against its data sets alone, reaches
`executed` with no Python at all (NNX_PYTHON=/bin/false: a worker that started would fail the run); its
record is nnx.model-conformance/1, validated, replayed by `execute` without Python, rendered by `report` and
accepted by `matrix`; a profile whose inputs disagree with the graph's is exit 2 naming both lists."""
import hashlib
import json
import shutil

import pytest

from conftest import BUNDLED_ORT, run_cli
from onnx_file_support import export_own_file, onnx_profile, write_profiles

NO_PYTHON = {"NNX_PYTHON": "/bin/false"}


@pytest.fixture(scope="module")
def own_file(tmp_path_factory):
    return export_own_file(tmp_path_factory.mktemp("own") / "src").parent


@pytest.fixture(scope="module")
def checked(own_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    profiles = write_profiles(out / "p.json", onnx_profile(own_file))
    done = run_cli("run", "--profile-file", profiles, "--output", out / "report.json", "--quiet", env=NO_PYTHON)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def record_of(folder):
    return json.loads((folder / "report.json").read_text())["profiles"][0]


def test_an_own_file_checked_against_its_data_sets_is_executed_without_python(own_file, checked):
    record = record_of(checked)
    assert (record["format"], record["status"], record["level"]) == ("nnx.model-conformance/1", "passed", "executed")
    assert record["model"] == {"kind": "onnx-file", "onnx": str(own_file / "model.onnx"),
                               "data": str(own_file / "data"), "factory": None, "bind": {}, "class": None,
                               "source_sha256": None, "state_sha256": None}
    imported = record["stages"]["export"]["detail"]["imported"]
    assert imported["sha256"] == hashlib.sha256((own_file / "model.onnx").read_bytes()).hexdigest()
    assert imported["producer"]["producer_name"] == "pytorch"
    assert [e["location"] for e in imported["external"]] == ["weights.bin"]
    assert record["stages"]["parity"]["detail"]["reference"] == "stored"
    assert record["stages"]["dependencies"]["detail"] == {"onnxruntime": record["runtime"]["version"]}
    roles = {f["path"]: f["role"] for f in record["artifacts"]["files"]}
    assert roles["weights.bin"] == "external-data" and roles["test_data_set_1/output_0.pb"] == "test-output"
    assert [c["inputs"][0]["shape"] for c in record["input_cases"]] == [[1, 6], [4, 6]]


def test_validate_accepts_the_record_and_refuses_a_tampered_one(checked, tmp_path):
    assert run_cli("validate", checked / "report.json").returncode == 0
    for change, needle in [(lambda r: r["model"].update(kind="module"), "model.kind"),
                           (lambda r: r["stages"]["export"]["detail"]["imported"].update(sha256="0" * 64),
                            "imported.sha256"),
                           (lambda r: r.update(model_state={}), "model_state")]:
        record = record_of(checked)
        change(record)
        (tmp_path / "r.json").write_text(json.dumps(record))
        done = run_cli("validate", tmp_path / "r.json")
        assert done.returncode == 1 and needle in done.stderr, done.stderr


def test_execute_replays_the_record_without_python_and_report_and_matrix_take_it(checked):
    root = checked / "report-artifacts"
    done = run_cli("execute", checked / "report.json", root, "--output", checked / "again.json", env=NO_PYTHON)
    assert done.returncode == 0, done.stderr
    again = json.loads((checked / "again.json").read_text())["profiles"][0]
    assert (again["format"], again["level"]) == ("nnx.model-conformance/1", "executed")
    page = run_cli("report", checked / "report.json")
    assert "ONNX file" in page.stdout and "outputs of its own data sets" in page.stdout, page.stdout
    matrix = run_cli("matrix", checked / "report.json", root, "--output", checked / "m.json",
                     "--onnxruntime", BUNDLED_ORT, "--jobs", "1", env=NO_PYTHON)
    assert matrix.returncode == 0, matrix.stderr
    cases = json.loads((checked / "m.json").read_text())["runtimes"][0]["outputs"]["mine"]
    assert [c["case"] for c in cases] == ["data-set-0", "data-set-1"]


def test_execute_with_a_torch_reference_of_a_data_only_record_is_refused_naming_the_stored_outputs(checked):
    done = run_cli("execute", checked / "report.json", checked / "report-artifacts", "--output",
                   checked / "torch.json", "--reference", "torch", env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "checked against its data sets, with no module to rebuild" in done.stderr, done.stderr
    assert "without --reference torch" in done.stderr and not (checked / "torch.json").exists()


def test_data_sets_whose_outputs_the_file_does_not_compute_are_a_mismatch(own_file, tmp_path):
    folder = tmp_path / "own"
    shutil.copytree(own_file, folder)
    shutil.copy(own_file / "data" / "test_data_set_0" / "output_0.pb", folder / "data" / "test_data_set_1" / "output_0.pb")
    shutil.copy(own_file / "data" / "test_data_set_0" / "input_0.pb", folder / "data" / "test_data_set_1" / "input_0.pb")
    other = folder / "data" / "test_data_set_0" / "output_0.pb"
    other.write_bytes(other.read_bytes()[:-4] + b"\x00\x00\x80\x7f")  # the last value +Inf instead
    profiles = write_profiles(tmp_path / "p.json", onnx_profile(folder))
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out.json", "--quiet", env=NO_PYTHON)
    record = json.loads((tmp_path / "out.json").read_text())["profiles"][0]
    assert done.returncode == 16 and record["failure"] == "mismatch", done.stdout + done.stderr
    assert [c["outcome"] for c in record["input_cases"]] == ["mismatch", "match"]


def test_a_spec_whose_inputs_are_not_the_graphs_is_a_usage_error_naming_both_lists(own_file, tmp_path):
    profiles = write_profiles(tmp_path / "p.json", onnx_profile(own_file, inputs=["x"]))
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "r.json", env=NO_PYTHON)
    assert done.returncode == 2, done.stderr
    assert "the profile's inputs [x] are not the graph's inputs [input.1]" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
