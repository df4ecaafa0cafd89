"""ONNX Runtime's own log lines (issue "The first hour", "Quiet, true output"): never printed raw, and in a
module record their message text only, in the stage's detail (src/runtime/runtime_log.h, stages/pipeline.cc):
no time, thread, severity or code location, no ESC sequence. A tested profile's record never gets them.

The runtime logs for real: `batch_baked` (tests/models/zoo.py) under the legacy TorchScript exporter bakes the
export's batch into a Reshape, so ONNX Runtime's executor logs the failing node at every other batch."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

ZOO = REPO / "tests" / "models" / "zoo.py"


@pytest.fixture(scope="module")
def baked_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runtime-log")
    profiles = [{"name": "baked", "exporter": "torchscript", "module": f"{ZOO}:batch_baked",
                 "inputs": [{"name": "x", "shape": ["batch", 3, 4], "dtype": "float32"}],
                 "dims": {"batch": [2, 1, 3]}}]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=600)
    return done, records_by_profile(json.loads((out / "report.json").read_text()))["baked"]


def test_a_module_record_keeps_the_runtimes_log_text_in_the_stage_detail(baked_run):
    done, record = baked_run
    assert done.returncode != 0 and record["status"] == "failed", done.stdout + done.stderr
    lines = record["stages"]["parity"]["detail"]["runtime_log"]
    assert any("Non-zero status code returned while running" in line for line in lines), lines
    for line in lines:
        assert "\x1b" not in line and "onnxruntime:" not in line and "sequential_executor.cc" not in line, line
        assert len(line.encode()) <= 1024, line


def test_the_runtime_log_is_never_printed(baked_run):
    done, _ = baked_run
    assert "onnxruntime:" not in done.stderr + done.stdout and "\x1b[" not in done.stderr, done.stderr


def test_the_module_record_with_a_runtime_log_validates(baked_run, tmp_path):
    done, record = baked_run
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    checked = run_cli("validate", path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
