"""Both tested profiles end to end: real exporters, real checker, real ONNX Runtime (issue: engine)."""
import hashlib
import json
import struct

import pytest
import torch

from conftest import run_cli
from support import saved_text


def test_both_profiles_pass_at_level_executed(both_profiles):
    done, report, _ = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["format"] == "nnx.export-conformance/1"
    assert report["status"] == "passed"
    assert [r["profile"] for r in report["profiles"]] == ["feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"]
    for record in report["profiles"]:
        assert record["status"] == "passed" and record["level"] == "executed" and record["failure"] is None
        assert record["model_state"] == {"parameters": True, "gradients": True, "modes": True}
        assert all(s["status"] == "passed" for s in record["stages"].values())


def test_every_match_case_is_within_1e5(both_profiles):
    _, report, _ = both_profiles
    for record in report["profiles"]:
        matched = [c for c in record["input_cases"] if c["expect"] == "match"]
        assert [c["name"] for c in matched] == ["batch-1", "batch-2", "batch-3", "batch-7"]
        for case in matched:
            assert case["outcome"] == "match" and case["passed"]
            assert 0 <= case["max_abs_error"] < 1e-5


def test_wrong_width_is_refused_as_invalid_argument(both_profiles):
    _, report, _ = both_profiles
    for record in report["profiles"]:
        width = record["input_cases"][-1]
        assert width["name"] == "width-5" and width["shape"] == [3, 5]
        assert width["outcome"] == "rejected" and width["passed"] and width["failure"] is None
        assert "invalid argument" in width["detail"]


def test_weights_digest_is_the_digest_of_what_pytorch_draws(both_profiles):
    _, report, _ = both_profiles
    g = torch.Generator().manual_seed(0)
    digest = hashlib.sha256()
    for name, shape in [("layers.0.weight", [8, 4]), ("layers.0.bias", [8]),
                        ("layers.1.weight", [2, 8]), ("layers.1.bias", [2])]:
        values = (torch.randn(shape, generator=g) * 0.5).contiguous()
        digest.update(f"{name}|float32|{json.dumps(shape)}|".encode())
        digest.update(values.numpy().astype("<f4").tobytes())
    for record in report["profiles"]:
        assert record["config"]["weights_sha256"] == digest.hexdigest()


def test_check_detail_shows_a_dynamic_batch(both_profiles):
    _, report, _ = both_profiles
    for record in report["profiles"]:
        detail = record["stages"]["check"]["detail"]
        assert detail["inputs"] == [{"name": "features", "dtype": "float", "shape": ["batch", 4]}]
        assert detail["outputs"][0]["name"] == "logits"
        assert detail["outputs"][0]["shape"][0] == "batch"
        assert detail["opset"]["ai.onnx"] == 17
        assert record["opset"]["model"]["ai.onnx"] == 17


def test_artifacts_are_listed_with_real_hashes(both_profiles):
    _, report, artifacts = both_profiles
    for record in report["profiles"]:
        files = record["artifacts"]["files"]
        assert [f["role"] for f in files if f["path"] == "model.onnx"] == ["model"]
        for f in files:
            data = (artifacts / record["artifacts"]["directory"] / f["path"]).read_bytes()
            assert f["bytes"] == len(data)
            assert f["sha256"] == hashlib.sha256(data).hexdigest()


def test_summary_lines_and_exit_code_are_printed(both_profiles):
    done, _, _ = both_profiles
    lines = done.stdout.splitlines()
    assert lines[0].startswith("feedfwd-fp32-torchscript: passed; level=executed;")
    assert lines[0].endswith("5/5 input cases passed")
    assert lines[1].startswith("feedfwd-fp32-dynamo: passed; level=executed;")
    assert "exit code: 0" in lines


def test_report_is_sorted_indented_and_ends_with_a_newline(both_profiles):
    _, report, artifacts = both_profiles
    text = (artifacts.parent / "report.json").read_text()
    assert text == saved_text(report)
