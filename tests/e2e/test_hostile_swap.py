"""Issue point 3 — the bytes hashed are the bytes executed.

The only deterministic way into the window between verification and session creation is a fake behind
the runtime seam (tests/fakes/pausing_runtime.h, in the test tool nnx_conformance_pausing, which is the
real command line otherwise): with NNX_TEST_PAUSE_AFTER_VERIFY=<path> it writes <path> when the load stage
asks for a session — after the artifacts were verified and their bytes kept in memory — and waits until
the test removes it. In that window the tests swap an artifact for different bytes that would visibly change the
results (a model computing logits + 1e-3, made by a real run with the shift-outputs fault; external data
holding other weights), by rename and in place. The record must still show the verified model's results:
every case executed and matching, and the spy library proves ONNX Runtime got the session from memory
(CreateSessionFromArray), never from the path. Afterwards the folder really holds the swapped bytes:
verify names them and execute refuses them.
"""
import json
import os
import struct
import subprocess

import pytest

from conftest import fault_env, run_custom_profile
from conftest import CLI
from hostile_support import (PAUSING_CLI, TORCHSCRIPT, assert_no_process_left, cli, finish, marked_env, only_record,
                                  start_cli, wait_for)
from support import spy_env, write_json

HOOK = "NNX_TEST_PAUSE_AFTER_VERIFY"


@pytest.fixture(scope="module")
def shifted_model(tmp_path_factory):
    """model.onnx of a real torchscript run with the shift-outputs fault (logits + 1e-3), and proof that
    running it is a mismatch (exit 16)."""
    out = tmp_path_factory.mktemp("shifted")
    env, _ = marked_env(fault_env("shift-outputs"))
    done = cli("run", "--output", out / "r.json", "--profile", TORCHSCRIPT, env=env)
    assert done.returncode == 16, done.stdout + done.stderr
    return (out / "r-artifacts" / TORCHSCRIPT / "model.onnx").read_bytes()


def swap(path, new_bytes, how):
    if how == "rename":      # a new file renamed over the verified one (a new inode)
        part = path.with_name(path.name + ".swap")
        part.write_bytes(new_bytes)
        os.replace(part, path)
    else:                    # the verified file's own inode rewritten
        with open(path, "r+b") as f:
            f.truncate(0)
            f.write(new_bytes)


def paused_run(args, env, pause, timeout=300):
    proc = start_cli(*args, env=env)
    wait_for(lambda: pause.exists() or proc.poll() is not None, timeout, "the engine to pause after verification")
    if proc.poll() is not None:
        code, out, err = finish(proc)
        pytest.fail(f"the run ended (exit {code}) before pausing: {out} {err}")
    return proc


@pytest.mark.parametrize("how", ["rename", "in-place"])
def test_a_model_swapped_after_verification_never_runs(tmp_path, shifted_model, how):
    pause = tmp_path / "paused"
    spy, log = spy_env(tmp_path)
    env, marker = marked_env({**spy, HOOK: pause})
    report = tmp_path / "r.json"
    proc = paused_run(["run", "--output", report, "--profile", TORCHSCRIPT], env, pause)
    assert pause.read_text() == "verified\n"
    model = tmp_path / "r-artifacts" / TORCHSCRIPT / "model.onnx"
    verified_bytes = model.read_bytes()
    assert verified_bytes != shifted_model
    swap(model, shifted_model, how)
    pause.unlink()
    code, out, err = finish(proc)
    assert code == 0, out + err
    assert "(test tool): paused after verifying the artifacts" in err

    record = only_record(report)
    assert record["status"] == "passed" and record["level"] == "executed"
    for case in record["input_cases"][:-1]:
        assert case["outcome"] == "match"
        assert case["max_abs_error"] < 1e-4, "the shifted model (+1e-3 on every logit) would show here"
    assert log.read_text().splitlines() == ["CreateSessionFromArray"], "the session came from memory"
    assert record["artifacts"]["files"][0]["bytes"] == len(verified_bytes)
    assert_no_process_left(marker)

    # The folder really holds the swapped bytes now: verify names them, execute refuses them.
    assert model.read_bytes() == shifted_model
    verified = cli("verify", report, tmp_path / "r-artifacts", env=dict(os.environ))
    assert verified.returncode == 14 and f"{TORCHSCRIPT}: model.onnx: hash mismatch" in verified.stderr
    log.unlink()
    executed = cli("execute", report, tmp_path / "r-artifacts", env={**os.environ, **spy})
    assert executed.returncode == 14 and not log.exists()


def test_external_data_swapped_after_verification_never_runs(tmp_path):
    """A dynamo export with external data (model.onnx.data); `execute` pauses after verification and the
    data file is overwritten in place with other weights (every float 1.0): still the verified results."""
    code, record = run_custom_profile({"name": "external-data", "exporter": "dynamo",
                                       "model": {"hidden_dims": [256]}}, tmp_path / "art")
    assert code == 0, record["stages"]
    roles = {f["path"]: f["role"] for f in record["artifacts"]["files"]}
    assert roles["model.onnx.data"] == "external-data"
    record_path = tmp_path / "record.json"
    write_json(record_path, record)

    pause = tmp_path / "paused"
    spy, log = spy_env(tmp_path)
    env, marker = marked_env({**spy, HOOK: pause})
    proc = paused_run(["execute", record_path, tmp_path / "art", "--output", tmp_path / "again.json"], env, pause)
    data = tmp_path / "art" / "external-data" / "model.onnx.data"
    size = data.stat().st_size
    assert size % 4 == 0 and size > 0
    swap(data, struct.pack(f"<{size // 4}f", *([1.0] * (size // 4))), "in-place")
    pause.unlink()
    code, out, err = finish(proc)
    assert code == 0, out + err
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["status"] == "passed" and again["level"] == "executed"
    assert all(c["outcome"] == "match" for c in again["input_cases"][:-1])
    assert log.read_text().splitlines() == ["CreateSessionFromArray"]
    assert_no_process_left(marker)

    log.unlink()
    executed = cli("execute", record_path, tmp_path / "art", "--output", tmp_path / "third.json",
                   env={**os.environ, **spy})
    assert executed.returncode == 14
    third = json.loads((tmp_path / "third.json").read_text())
    assert third["stages"]["load"]["detail"]["problems"] == ["model.onnx.data: hash mismatch"]
    assert not log.exists()


def test_the_product_has_no_pause_hook(tmp_path):
    """The pause lives in a fake in tests/, not in the product: the real command line ignores the variable
    and the test tool without it only forwards to the real runtime."""
    pause = tmp_path / "paused"
    env, _ = marked_env()
    env["NNX_TEST_PAUSE_AFTER_VERIFY"] = str(pause)
    done = subprocess.run([str(CLI), "run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0 and "paused" not in done.stderr and not pause.exists()
    assert only_record(tmp_path / "r.json")["stages"]["load"]["detail"] == {"providers": ["CPUExecutionProvider"]}
    env.pop("NNX_TEST_PAUSE_AFTER_VERIFY")
    done = subprocess.run([str(PAUSING_CLI), "run", "--output", tmp_path / "again.json", "--profile", TORCHSCRIPT,
                           "--artifacts", tmp_path / "again"], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0 and "paused" not in done.stderr, done.stderr
