"""scripts/check_export_conformance.py: the brief's script over nnx.export_conformance (real runs).

The script imports `nnx` from the environment, else the package this build staged (NNX_BUILD_DIR/python);
in this virtualenv nnx is not installed, so the build's package is what runs.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, REPO, require_runtime
from support import saved_text

SCRIPT = REPO / "scripts" / "check_export_conformance.py"
TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"


def script(*args, env=None):
    full_env = {**os.environ, "NNX_BUILD_DIR": str(BUILD), **(env or {})}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          env=full_env, timeout=900)


def usage_error(done):
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "usage error" in lines[0], done.stderr
    return lines[0]


def test_repeated_profile_runs_once_with_default_artifacts(tmp_path):
    require_runtime()
    out = tmp_path / "out" / "conf.json"
    done = script("--output", out, "--profile", TORCHSCRIPT, "--profile", TORCHSCRIPT)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert [r["profile"] for r in report["profiles"]] == [TORCHSCRIPT]
    artifacts = tmp_path / "out" / "conf-artifacts"
    assert (artifacts / TORCHSCRIPT / "model.onnx").is_file()
    lines = done.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith(f"{TORCHSCRIPT}: passed; level=executed; exporter=torchscript;")
    assert lines[0].endswith("5/5 input cases passed")
    assert lines[1:] == [f"report: {out}", f"artifacts: {artifacts}", "exit code: 0"]


def test_report_layout_and_source_revision(tmp_path):
    require_runtime()
    out = tmp_path / "r.json"
    done = script("--output", out, "--artifacts", tmp_path / "arts", "--profile", DYNAMO,
                  "--source-revision", "feedc0de")
    assert done.returncode == 0, done.stdout + done.stderr
    text = out.read_text()
    report = json.loads(text)
    assert sorted(report) == ["format", "profiles", "status"]
    assert report["format"] == "nnx.export-conformance/1" and report["status"] == "passed"
    assert text == saved_text(report)
    (record,) = report["profiles"]
    assert record["source"]["origin"] == "given" and record["source"]["revision"] == "feedc0de"
    assert record["source"]["dirty"] is None
    assert (tmp_path / "arts" / DYNAMO / "model.onnx").is_file()
    assert not (tmp_path / "r-artifacts").exists()
    # what the script wrote is valid for the C++ command line too
    cli = subprocess.run([str(BUILD / "nnx-conformance"), "verify", str(out), str(tmp_path / "arts")],
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr


def test_a_folder_holding_files_needs_force_and_force_clears_only_chosen_profiles(tmp_path):
    require_runtime()
    arts = tmp_path / "arts"
    (arts / TORCHSCRIPT).mkdir(parents=True)
    (arts / TORCHSCRIPT / "stale.onnx").write_text("old")
    (arts / DYNAMO).mkdir()
    (arts / DYNAMO / "keep.txt").write_text("another profile's file")
    (arts / "notes").mkdir()
    (arts / "notes" / "keep.txt").write_text("not a profile")
    out = tmp_path / "r.json"
    line = usage_error(script("--output", out, "--artifacts", arts, "--profile", TORCHSCRIPT))
    assert "--force" in line and TORCHSCRIPT in line
    assert not out.exists() and (arts / TORCHSCRIPT / "stale.onnx").exists()
    done = script("--output", out, "--artifacts", arts, "--profile", TORCHSCRIPT, "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (arts / TORCHSCRIPT / "stale.onnx").exists()
    assert (arts / TORCHSCRIPT / "model.onnx").is_file()
    assert (arts / DYNAMO / "keep.txt").read_text() == "another profile's file"
    assert (arts / "notes" / "keep.txt").exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        ((), "--output"),
        (("--output", "x.json", "--profile", "feedfwd-fp64"), 'unknown profile "feedfwd-fp64"'),
        (("--output", "x.json", "--unknown"), "unrecognized arguments"),
        (("--output", "x.json", "--profile"), "expected one argument"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path, args, needle):
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "NNX_BUILD_DIR": str(BUILD)}, timeout=120)
    assert needle in usage_error(done)
    assert not (tmp_path / "x.json").exists()


def test_output_naming_a_folder_is_a_usage_error(tmp_path):
    assert "--output" in usage_error(script("--output", tmp_path))


def test_a_missing_runtime_is_exit_10_with_a_report(tmp_path):
    out = tmp_path / "missing.json"
    done = script("--output", out, env={"NNX_ONNXRUNTIME_LIBRARY": str(tmp_path / "absent.so")})
    assert done.returncode == 10, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert [r["failure"] for r in report["profiles"]] == ["missing-dependency"] * 2
    assert report["status"] == "failed"
    assert done.stdout.splitlines()[-1] == "exit code: 10"
