"""execute holds in memory only what it loads (issue 38, "And more"): a sidecar the record lists (a file
beside model.onnx that no tensor references) is hashed as it is read, as `verify` does, never held whole. A
1 GiB sparse sidecar added to a real record's folder and listed in it: execute under a 768 MiB data limit
still verifies it, loads and passes; a changed byte in it is still hash-mismatch."""
import hashlib
import json
import resource
import subprocess
from pathlib import Path

import pytest

from conftest import CLI, run_cli
from support import write_json

SIDECAR_BYTES = 1 << 30
DATA_LIMIT = 768 << 20
PROFILE = {"name": "small-ts", "exporter": "torchscript", "batches": [1, 2],
           "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}


def zeros_sha256(size: int) -> str:
    digest, block = hashlib.sha256(), bytes(8 << 20)
    for _ in range(size // len(block)):
        digest.update(block)
    return digest.hexdigest()


@pytest.fixture(scope="module")
def with_sidecar(tmp_path_factory):
    """(report path, root) of a real run whose record lists a 1 GiB sparse sidecar in its folder."""
    out = tmp_path_factory.mktemp("sidecar")
    (out / "profiles.json").write_text(json.dumps([PROFILE]))
    done = run_cli("run", "--profile-file", out / "profiles.json", "--output", out / "report.json")
    assert done.returncode == 0, done.stdout + done.stderr
    root = out / "report-artifacts"
    sidecar = root / "small-ts" / "big.bin"
    with open(sidecar, "wb") as f:
        f.truncate(SIDECAR_BYTES)  # sparse: no disk, all zeros
    report = json.loads((out / "report.json").read_text())
    files = report["profiles"][0]["artifacts"]["files"]
    files.append({"path": "big.bin", "role": "sidecar", "bytes": SIDECAR_BYTES, "sha256": zeros_sha256(SIDECAR_BYTES)})
    files.sort(key=lambda f: f["path"])
    write_json(out / "report.json", report)
    return out / "report.json", root


def execute_limited(report: Path, root: Path):
    def limit():
        resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT, DATA_LIMIT))
    return subprocess.run([str(CLI), "execute", str(report), str(root)], capture_output=True, text=True,
                          preexec_fn=limit, timeout=600)


def test_execute_streams_a_sidecar_it_does_not_load(with_sidecar):
    done = execute_limited(*with_sidecar)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "small-ts: passed; level=executed" in done.stdout


def test_a_changed_byte_in_a_streamed_sidecar_is_still_hash_mismatch(with_sidecar, tmp_path):
    report, root = with_sidecar
    sidecar = root / "small-ts" / "big.bin"
    with open(sidecar, "r+b") as f:
        f.seek(SIDECAR_BYTES // 2)
        f.write(b"\1")
    try:
        done = execute_limited(report, root)
    finally:
        with open(sidecar, "r+b") as f:
            f.seek(SIDECAR_BYTES // 2)
            f.write(b"\0")
    assert done.returncode == 14, done.stdout + done.stderr
    assert "hash-mismatch" in done.stdout
