"""Every failure class of the engine, caused for real where possible.

Faults are injected (the stand-in worker tests/fakes/faulty_worker.py with a fault of tests/fakes/faults.py,
conftest.fault_env) only where nothing else can cause the failure: an exporter that raises or changes the
model's state, a model the checker refuses, a graph whose outputs are shifted or non-finite, and one that
fails at run time. Everything downstream of the injected fault — checker, ONNX Runtime, parity, the
record — is real.
"""
import json

import pytest

from conftest import fault_env, run_cli, run_custom_profile
from support import stage_statuses

TORCHSCRIPT = "feedfwd-fp32-torchscript"


def run_one(tmp_path, fault=None, extra_env=None):
    env = {**(fault_env(fault) if fault else {}), **(extra_env or {})}
    done = run_cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT, env=env)
    report = json.loads((tmp_path / "r.json").read_text())
    (record,) = report["profiles"]
    return done, record


def test_missing_runtime_is_exit_10_never_a_skip(tmp_path):
    done, record = run_one(tmp_path, extra_env={"NNX_ONNXRUNTIME_LIBRARY": str(tmp_path / "absent.so")})
    assert done.returncode == 10, done.stderr
    assert record["failure"] == "missing-dependency" and record["level"] == "none"
    assert stage_statuses(record) == ["failed", "not_run", "not_run", "not_run", "not_run"]
    assert "onnxruntime" in record["stages"]["dependencies"]["detail"]
    assert record["model_state"] is None


def test_exporter_raising_is_exit_11(tmp_path):
    done, record = run_one(tmp_path, fault="exporter-raises")
    assert done.returncode == 11
    assert record["failure"] == "export-error"
    # The exporter was called, and left the model as it found it (record-format §4).
    assert record["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert stage_statuses(record)[1:] == ["failed", "not_run", "not_run", "not_run"]
    assert record["stages"]["export"]["detail"]["error"]


def test_an_exporter_that_changes_the_model_and_raises_is_state_changed_first(tmp_path):
    done, record = run_one(tmp_path, fault="mutate-then-raise")
    assert done.returncode == 12, done.stdout + done.stderr
    assert record["failure"] == "state-changed"
    assert record["model_state"] == {"parameters": False, "gradients": True, "modes": True}
    detail = record["stages"]["export"]["detail"]
    assert detail["changed"] == ["parameters"]
    assert detail["export"]["error"].startswith("RuntimeError: nnx test fault 'mutate-then-raise'")
    assert "log" in detail["export"] and "warnings" in detail


def test_an_opset_the_exporter_cannot_write_is_a_real_export_error(tmp_path):
    code, record = run_custom_profile({"name": "old-opset", "opset_version": 3}, tmp_path)
    assert code == 11 and record["failure"] == "export-error"
    assert "opset" in record["stages"]["export"]["detail"]["error"].lower()


def test_exporter_changing_a_parameter_is_exit_12(tmp_path):
    done, record = run_one(tmp_path, fault="mutate-parameter")
    assert done.returncode == 12
    assert record["failure"] == "state-changed"
    assert record["model_state"]["parameters"] is False
    assert record["stages"]["export"]["detail"]["changed"] == ["parameters"]


def test_checker_refusing_is_exit_13(tmp_path):
    done, record = run_one(tmp_path, fault="checker-refuses")
    assert done.returncode == 13
    assert record["failure"] == "checker-error" and record["level"] == "none"
    assert record["opset"]["model"] is None and record["artifacts"]["files"] == []


def test_session_creation_failing_is_exit_15(tmp_path):
    code, record = run_custom_profile({"name": "no-such-provider", "provider": "NoSuchExecutionProvider"},
                                      tmp_path)
    assert code == 15 and record["failure"] == "load-error" and record["level"] == "structural"
    assert "NoSuchExecutionProvider" in record["stages"]["load"]["detail"]["error"]


def test_outputs_shifted_by_1e3_are_exit_16(tmp_path):
    done, record = run_one(tmp_path, fault="shift-outputs")
    assert done.returncode == 16 and record["failure"] == "mismatch"
    for case in record["input_cases"][:-1]:
        assert case["outcome"] == "mismatch"
        assert case["max_abs_error"] == pytest.approx(1e-3, rel=1e-2)
    assert record["input_cases"][-1]["outcome"] == "rejected"


def test_non_finite_outputs_are_exit_16_with_null_errors(tmp_path):
    done, record = run_one(tmp_path, fault="nonfinite-outputs")
    assert done.returncode == 16 and record["failure"] == "mismatch"
    for case in record["input_cases"][:-1]:
        assert case["outcome"] == "mismatch"
        assert case["max_abs_error"] is None and case["max_rel_error"] is None
        assert "not finite" in case["detail"]


def test_runtime_failing_on_every_case_is_exit_18(tmp_path):
    done, record = run_one(tmp_path, fault="runtime-fails")
    assert done.returncode == 18 and record["failure"] == "runtime-error"
    assert [c["outcome"] for c in record["input_cases"]] == ["error"] * 5
    assert record["stages"]["parity"]["detail"]["failed_cases"] == [c["name"] for c in record["input_cases"]]


def test_static_batch_is_an_input_contract_failure(tmp_path):
    code, record = run_custom_profile({"name": "static-batch", "dynamic_batch": False}, tmp_path)
    assert code == 17
    assert record["failure"] == "input-contract" and record["level"] == "structural"
    assert record["stages"]["parity"]["detail"]["failed_cases"] == ["batch-1", "batch-3", "batch-7"]
    outcomes = {c["name"]: c["outcome"] for c in record["input_cases"]}
    assert outcomes == {"batch-1": "rejected", "batch-2": "match", "batch-3": "rejected",
                        "batch-7": "rejected", "width-5": "rejected"}
