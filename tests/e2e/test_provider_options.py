"""Provider options beside the session settings (doc/runtime-matrix.md, "Axes"; doc/record-format.md §11; issue
"Every way it is run"): `--provider-option KEY=VALUE` (repeatable) on `execute`, `run` and `matrix` is given to
the execution provider when the session appends it. It is not an axis: every cell gets them; a cell's `settings`
and each record's `runtime.provider_options` state them, read back strictly, and a record so written re-executes
as it says. The CPU provider takes none (a usage error before anything runs; a tested profile's record on
another provider with options is §11's kind "built-in"); an option the provider refuses is that record's load-error quoting ONNX Runtime. Real ONNX Runtime: the
1.24.1 release of onnxruntime-openvino in the runtime cache, its OpenVINO provider on this CPU, and the real ONNX
file of two convolutions of tests/e2e/test_matrix_axes.py."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, run_cli
from support import without_seconds
from test_matrix_axes import report  # noqa: F401 (the fixture: the two convolutions' report, run once here)
from test_session_settings import executed

OPENVINO = ("--onnxruntime-version", "1.24.1", "--provider", "OpenVINOExecutionProvider")


@pytest.fixture(scope="module")
def options_matrix(report):
    done = run_cli("matrix", report / "r.json", report / "r-artifacts", "--output", report / "m.json", *OPENVINO,
                   "--optimization-level", "ORT_DISABLE_ALL", "--optimization-level", "ORT_ENABLE_ALL",
                   "--provider-option", "precision=FP32", "--provider-option", "num_of_threads=2", "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads((report / "m.json").read_text())


def test_every_cell_gets_the_provider_options_and_says_them_in_its_settings_and_records(report, options_matrix):
    done, document = options_matrix
    options = {"num_of_threads": "2", "precision": "FP32"}
    assert len(document["runtimes"]) == 2  # not an axis: two levels, one cell each
    for runtime in document["runtimes"]:
        assert runtime["settings"]["provider"] == "OpenVINOExecutionProvider"
        assert runtime["settings"]["provider_options"] == options
        record = runtime["records"][0]
        assert record["status"] == "passed" and record["runtime"]["provider_options"] == options
        assert "provider_options" not in record["runtime"]["session"]
    assert [r["cell"] for r in document["runtimes"]] == [
        "1.24.1 (ORT_DISABLE_ALL, OpenVINOExecutionProvider num_of_threads=2 precision=FP32)",
        "1.24.1 (OpenVINOExecutionProvider num_of_threads=2 precision=FP32)"]
    assert "onnxruntime 1.24.1 (OpenVINOExecutionProvider num_of_threads=2 precision=FP32)  convs: passed" in done.stdout
    assert run_cli("validate", report / "m.json").returncode == 0


def test_the_matrix_reader_and_the_validator_refuse_edited_provider_options(report, options_matrix, tmp_path):
    _, document = options_matrix
    for edit, needle in ((lambda d: d["runtimes"][0]["settings"].update(provider_options={"precision": 32}),
                          "settings: provider_options must be a non-empty object of strings"),
                         (lambda d: d["runtimes"][0]["records"][0]["runtime"].update(provider_options={}),
                          "runtime.provider_options: must be a non-empty object of KEY: VALUE strings")):
        edited = json.loads(json.dumps(document))
        edit(edited)
        (tmp_path / "e.json").write_text(json.dumps(edited))
        done = run_cli("validate", tmp_path / "e.json")
        assert done.returncode != 0 and needle in done.stdout + done.stderr, done.stdout + done.stderr


def test_execute_gives_the_options_to_the_provider_and_a_record_so_written_runs_again_as_it_says(report):
    record = executed(report, "e.json", *OPENVINO, "--provider-option", "precision=FP32")
    assert record["status"] == "passed"
    assert record["runtime"]["provider"] == "OpenVINOExecutionProvider"
    assert record["runtime"]["provider_options"] == {"precision": "FP32"}
    assert run_cli("validate", report / "e.json").returncode == 0
    again = run_cli("execute", report / "e.json", report / "r-artifacts", "--output", report / "again.json",
                    "--onnxruntime-version", "1.24.1")
    assert again.returncode == 0, again.stdout + again.stderr
    runtime = json.loads((report / "again.json").read_text())["profiles"][0]["runtime"]
    assert runtime["provider"] == "OpenVINOExecutionProvider" and runtime["provider_options"] == {"precision": "FP32"}


def test_an_option_the_provider_refuses_is_the_records_load_error_quoting_onnx_runtime(report):
    record = executed(report, "bad.json", *OPENVINO, "--provider-option", "no_such_option=1", code=15)
    load = record["stages"]["load"]
    assert load["failure"] == "load-error" and record["runtime"]["provider_options"] == {"no_such_option": "1"}
    assert "Failed to load provider OpenVINO" in load["detail"]["error"]
    assert any("Invalid provider_option key: no_such_option" in line for line in load["detail"]["runtime_log"])


def test_the_cpu_provider_takes_no_options_a_usage_error_before_anything_runs(report, tmp_path):
    for command in (("execute", report / "r.json", report / "r-artifacts", "--output", tmp_path / "e.json"),
                    ("matrix", report / "r.json", report / "r-artifacts", "--output", tmp_path / "m.json",
                     "--onnxruntime-version", "1.24.1", "--provider", "CPUExecutionProvider", "--provider",
                     "OpenVINOExecutionProvider")):
        done = run_cli(*command, "--provider-option", "precision=FP32")
        assert done.returncode == 2, done.stdout + done.stderr
        assert "CPUExecutionProvider takes no" in done.stderr and "--provider" in done.stderr
    assert not (tmp_path / "e.json").exists() and not (tmp_path / "m.json").exists()
    run = run_cli("run", "--profile-file", report / "p.json", "--output", tmp_path / "r.json", "--provider-option",
                  "precision=FP32")
    assert run.returncode == 2 and "CPUExecutionProvider takes no provider options" in run.stderr
    malformed = run_cli("execute", report / "r.json", report / "r-artifacts", "--output", tmp_path / "e.json",
                        *OPENVINO, "--provider-option", "precision")
    assert malformed.returncode == 2 and "--provider-option takes KEY=VALUE, not precision" in malformed.stderr


def test_a_tested_profiles_record_under_provider_options_is_the_built_in_kind(both_profiles, tmp_path):
    _, _, root = both_profiles
    done = run_cli("execute", root.parent / "report.json", root, "--output", tmp_path / "e.json",
                   "--provider-option", "precision=FP32")
    assert done.returncode == 2 and "CPUExecutionProvider takes no provider options" in done.stderr, done.stderr
    assert not (tmp_path / "e.json").exists()
    done = run_cli("execute", root.parent / "report.json", root, "--output", tmp_path / "e.json", *OPENVINO,
                   "--provider-option", "precision=FP32")
    assert done.returncode == 0, done.stdout + done.stderr
    for record in json.loads((tmp_path / "e.json").read_text())["profiles"]:
        assert record["format"] == "nnx.model-conformance/1" and record["model"]["kind"] == "built-in"
        assert record["runtime"]["provider"] == "OpenVINOExecutionProvider"
        assert record["runtime"]["provider_options"] == {"precision": "FP32"}
    assert run_cli("validate", tmp_path / "e.json").returncode == 0


def test_python_takes_provider_options_as_the_command_line(report, options_matrix):
    code = ("import json, sys\nfrom nnx.export_conformance import execute, runtime_matrix\n"
            "m = runtime_matrix(sys.argv[1], sys.argv[2], runtimes=['1.24.1'], jobs=2,\n"
            "                   optimization_levels=['ORT_DISABLE_ALL', 'ORT_ENABLE_ALL'],\n"
            "                   providers=['OpenVINOExecutionProvider'],\n"
            "                   provider_options={'precision': 'FP32', 'num_of_threads': '2'})\n"
            "r = execute(sys.argv[1], sys.argv[2], provider='OpenVINOExecutionProvider',\n"
            "            onnxruntime=sys.argv[3], provider_options={'precision': 'FP32'})\n"
            "print(json.dumps([m, r]))\n")
    library = os.path.expanduser("~/.cache/nnx-conformance/runtimes/1.24.1/libonnxruntime.so.1.24.1")
    done = subprocess.run([sys.executable, "-c", code, str(report / "r.json"), str(report / "r-artifacts"), library],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(BUILD / "python")},
                          timeout=600)
    assert done.returncode == 0, done.stderr
    from_python, executed_report = json.loads(done.stdout)
    from_python["report"]["path"] = options_matrix[1]["report"]["path"]
    assert without_seconds(from_python) == without_seconds(options_matrix[1])
    assert executed_report["profiles"][0]["runtime"]["provider_options"] == {"precision": "FP32"}
