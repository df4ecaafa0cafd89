"""validate, verify and execute on real reports and real artifact folders (issue: trusted records).

The reports come from real runs (both tested profiles, and a custom profile); tampering is done on copies
of their artifact folders. A spy library stands in for libonnxruntime where a test must prove that
ONNX Runtime was never asked to create a session (tests/fakes/ort_spy.cc forwards every call).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CLI, run_cli, run_custom_profile
from support import copy_artifacts, spy_env, write_json


@pytest.fixture()
def copied(both_profiles, tmp_path):
    """A private copy of the both-profiles report and its artifacts: (report path, artifact root)."""
    _, report, artifacts = both_profiles
    root = copy_artifacts(artifacts, tmp_path)
    return write_json(tmp_path / "report.json", report), root


def write_record(tmp_path, record, name="record.json"):
    return write_json(tmp_path / name, record)


def test_validate_accepts_a_real_report(copied):
    path, _ = copied
    done = run_cli("validate", path)
    assert done.returncode == 0, done.stderr
    assert "valid (2 record(s))" in done.stdout


def test_validate_names_the_problem_of_an_edited_record(copied, tmp_path):
    path, _ = copied
    report = json.loads(path.read_text())
    record = report["profiles"][0]
    record["tolerances"]["rtol"] = 0.001
    done = run_cli("validate", write_record(tmp_path, record))
    assert done.returncode == 1
    assert "tolerances.rtol" in done.stderr


def test_validate_checks_every_file_named_and_names_each_problem_in_one_call(copied, tmp_path):
    path, _ = copied
    report = json.loads(path.read_text())
    edited = report["profiles"][0]
    edited["tolerances"]["rtol"] = 0.001
    bad = write_record(tmp_path, edited)
    not_json = tmp_path / "not.json"
    not_json.write_text("{")
    single = tmp_path / "single" / "record.json"
    single.parent.mkdir()
    single.write_text(json.dumps(report["profiles"][1]))
    done = run_cli("validate", path, bad, not_json, single)
    assert done.returncode == 1
    assert f"{path}: valid (2 record(s))" in done.stdout
    assert f"{single}: valid (1 record(s))" in done.stdout
    assert f"{bad}: " in done.stderr and "tolerances.rtol" in done.stderr
    assert "not.json" in done.stderr
    assert run_cli("validate", path, single).returncode == 0


@pytest.mark.parametrize("edit,needle", [
    (lambda r: r["input_cases"][0].__setitem__("seed", 1), "seed"),
    (lambda r: r["exporter"]["options"].__setitem__("opset_version", 18), "opset"),
    (lambda r: r["exporter"]["options"].__setitem__("export_batch", 3), "export_batch"),
])
def test_a_tested_profile_with_edited_settings_is_refused(copied, tmp_path, edit, needle):
    path, _ = copied
    record = json.loads(path.read_text())["profiles"][1]
    edit(record)
    done = run_cli("validate", write_record(tmp_path, record))
    assert done.returncode == 1 and needle in done.stderr


def test_validate_refuses_text_that_is_not_strict_json(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"format": "nnx.export-conformance/1", "format": "x"}')
    done = run_cli("validate", path)
    assert done.returncode == 1 and "duplicate" in done.stderr


def test_verify_passes_on_untouched_artifacts(copied):
    path, root = copied
    done = run_cli("verify", path, root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("every artifact verified") == 2


def test_verify_checks_every_file_named_against_one_root_in_one_call(copied, tmp_path):
    path, root = copied
    report = json.loads(path.read_text())
    single = write_record(tmp_path, report["profiles"][1], "dynamo.json")
    edited = json.loads(json.dumps(report["profiles"][0]))
    edited["tolerances"]["rtol"] = 0.001
    bad = write_record(tmp_path, edited, "edited.json")
    not_json = tmp_path / "not.json"
    not_json.write_text("{")
    done = run_cli("verify", path, single, root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("every artifact verified") == 3
    assert f"{single}: feedfwd-fp32-dynamo: every artifact verified" in done.stdout
    (root / "feedfwd-fp32-dynamo" / "extra.txt").write_text("x")
    done = run_cli("verify", path, bad, not_json, single, root)
    assert done.returncode == 14, "the first failing file's code: its unlisted file is a hash-mismatch"
    assert f"{path}: feedfwd-fp32-torchscript: every artifact verified" in done.stdout
    assert f"{path}: feedfwd-fp32-dynamo: extra.txt: not in the record" in done.stderr
    assert f"{single}: feedfwd-fp32-dynamo: extra.txt: not in the record" in done.stderr
    assert f"{bad}: feedfwd-fp32-torchscript: invalid record: " in done.stderr and "tolerances.rtol" in done.stderr
    assert "not.json" in done.stderr, "a file that is not JSON is named; the others are still checked"


def test_one_changed_byte_is_hash_mismatch_and_no_session_is_created(copied, tmp_path):
    path, root = copied
    model = root / "feedfwd-fp32-torchscript" / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0x01
    model.write_bytes(bytes(data))
    done = run_cli("verify", path, root)
    assert done.returncode == 14 and "model.onnx: hash mismatch" in done.stderr  # as execute: hash-mismatch
    env, log = spy_env(tmp_path)
    done = run_cli("execute", path, root, "--output", tmp_path / "again.json", env=env)
    assert done.returncode == 14, done.stdout + done.stderr
    again = json.loads((tmp_path / "again.json").read_text())
    first = again["profiles"][0]
    assert first["failure"] == "hash-mismatch" and first["stages"]["parity"]["status"] == "not_run"
    assert first["stages"]["load"]["detail"]["problems"] == ["model.onnx: hash mismatch"]
    # The dynamo record (untouched) did create a session through the spy: the spy works.
    assert again["profiles"][1]["status"] == "passed"
    assert log.read_text().splitlines() == ["CreateSessionFromArray"]


def test_added_removed_and_symlinked_files_are_named(copied):
    path, root = copied
    folder = root / "feedfwd-fp32-dynamo"
    (folder / "extra.txt").write_text("x")
    (folder / "model.onnx.data").unlink()
    done = run_cli("verify", path, root)
    assert done.returncode == 14
    assert "extra.txt: not in the record" in done.stderr
    assert "model.onnx.data: missing" in done.stderr
    (folder / "extra.txt").unlink()
    (root / "outside.data").write_bytes(b"")
    os.symlink(root / "outside.data", folder / "model.onnx.data")
    done = run_cli("verify", path, root)
    assert done.returncode == 14 and "model.onnx.data: a symlink" in done.stderr


def test_a_symlinked_profile_folder_never_verifies(copied):
    path, root = copied
    real = root / "real-torchscript"
    (root / "feedfwd-fp32-torchscript").rename(real)
    os.symlink(real, root / "feedfwd-fp32-torchscript")
    done = run_cli("verify", path, root)
    assert done.returncode == 14 and "feedfwd-fp32-torchscript: a symlink" in done.stderr


def test_an_artifact_directory_outside_the_root_is_refused(copied, tmp_path):
    path, root = copied
    record = json.loads(path.read_text())["profiles"][0]
    record["artifacts"]["directory"] = "../elsewhere"
    done = run_cli("verify", write_record(tmp_path, record), root)
    assert done.returncode == 1 and "directory" in done.stderr


def test_execute_reproduces_both_records_without_python(copied, tmp_path):
    path, root = copied
    env = {"PATH": "/nonexistent", "NNX_PYTHON": "/nonexistent/python", "PYTHONPATH": ""}
    # Prove the environment cannot import torch: there is no Python on its PATH at all.
    probe = subprocess.run(["/bin/sh", "-c", "python3 -c 'import torch'"], env=env, capture_output=True)
    assert probe.returncode != 0
    trace = tmp_path / "exec.trace"
    strace = shutil.which("strace")
    assert strace, "strace is needed (make bootstrap installs it)"
    done = subprocess.run([strace, "-f", "-qq", "-e", "trace=execve", "-o", str(trace), str(CLI), "execute",
                           str(path), str(root), "--output", str(tmp_path / "again.json")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    execs = [line for line in trace.read_text().splitlines() if "execve(" in line and "= 0" in line]
    assert len(execs) == 1 and str(CLI) in execs[0]  # the binary itself, nothing else (no python)
    again = json.loads((tmp_path / "again.json").read_text())
    original = json.loads(path.read_text())
    for before, after in zip(original["profiles"], again["profiles"]):
        assert after["level"] == "executed" and after["status"] == "passed"
        assert [c["outcome"] for c in after["input_cases"]] == [c["outcome"] for c in before["input_cases"]]
        # Without Python the reference is the C++ forward (the run's was PyTorch: errors may differ in the last
        # bits); every compared case is still within tolerance, and the detail says which reference it was.
        assert after["stages"]["parity"]["detail"]["reference"] == "native"
        compared = [c["name"] for c in after["input_cases"] if c["max_abs_error"] is not None]
        assert compared == [c["name"] for c in before["input_cases"] if c["max_abs_error"] is not None]
        assert all(t["margin"] <= 1 for t in after["stages"]["parity"]["detail"]["triangulation"])
        assert after["stages"]["export"] == before["stages"]["export"]
        assert after["config"] == before["config"]


def test_a_custom_profile_record_revalidates_and_reexecutes(tmp_path):
    code, record = run_custom_profile({"name": "wide-tanh", "batches": [1, 5],
                                       "model": {"hidden_dims": [16, 8], "activation": "tanh"}},
                                      tmp_path / "art")
    assert code == 0, record["stages"]
    path = write_record(tmp_path, record)
    assert run_cli("validate", path).returncode == 0
    done = run_cli("execute", path, tmp_path / "art", "--output", tmp_path / "again.json")
    assert done.returncode == 0, done.stdout + done.stderr
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["level"] == "executed"
    # And a record whose weights no longer match its config is refused before anything runs.
    record["config"]["weights"]["seed"] = 1
    done = run_cli("execute", write_record(tmp_path, record, "seed1.json"), tmp_path / "art")
    assert done.returncode == 1 and "SHA-256" in done.stderr


def test_execute_without_a_runtime_is_exit_10(copied, tmp_path):
    path, root = copied
    done = run_cli("execute", path, root, env={"NNX_ONNXRUNTIME_LIBRARY": str(tmp_path / "none.so")})
    assert done.returncode == 10 and "not available" in done.stderr


def test_a_changed_byte_in_real_external_data_is_hash_mismatch_and_nothing_loads(tmp_path):
    # The dynamo exporter itself stores larger initializers in model.onnx.data (role external-data).
    code, record = run_custom_profile({"name": "external-data", "exporter": "dynamo",
                                       "model": {"hidden_dims": [256]}}, tmp_path / "art")
    assert code == 0, record["stages"]
    roles = {f["path"]: f["role"] for f in record["artifacts"]["files"]}
    assert roles == {"model.onnx": "model", "model.onnx.data": "external-data"}
    path = write_record(tmp_path, record)
    env, log = spy_env(tmp_path)
    done = run_cli("execute", path, tmp_path / "art", env=env)
    assert done.returncode == 0, done.stdout + done.stderr   # untouched: executes from verified bytes
    assert log.read_text().splitlines() == ["CreateSessionFromArray"]
    # The path rule normalises "./model.onnx.data": a record written that way is valid and executes alike.
    dotted = json.loads(json.dumps(record))
    for f in dotted["artifacts"]["files"]:
        f["path"] = "./" + f["path"]
    dotted_path = write_record(tmp_path, dotted, "dotted.json")
    assert run_cli("validate", dotted_path).returncode == 0
    done = run_cli("execute", dotted_path, tmp_path / "art")
    assert done.returncode == 0, done.stdout + done.stderr
    data_file = tmp_path / "art" / "external-data" / "model.onnx.data"
    data = bytearray(data_file.read_bytes())
    data[100] ^= 0x40
    data_file.write_bytes(bytes(data))
    log.unlink()
    done = run_cli("execute", path, tmp_path / "art", "--output", tmp_path / "again.json", env=env)
    assert done.returncode == 14
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["stages"]["load"]["detail"]["problems"] == ["model.onnx.data: hash mismatch"]
    assert not log.exists()
