"""The golden tested records (tests/golden/<profile>.json): what `run --source-revision feedc0de` writes for
the two tested profiles, one record per file in the writer's own form (Python's json.dumps, keys sorted,
indent 2, a final newline), with only the values this machine decides set aside.

Which values, and why: two runs on one machine write identical bytes (the record holds no time, and its
exports, draws and float results repeat; torch, MKL and oneDNN held to AVX2 change nothing either, while
ATEN_CPU_CAPABILITY=default, torch's path for a CPU without AVX2, draws other weights on both sides
(model/torch_random.h): these are the goldens of an x86_64 machine with AVX2). What another such machine
changes is its own description in `versions`:
- `versions.platform`: the host's kernel release and C library (Python's platform.platform());
- `versions.python`: the patch release of the python3 the bootstrap made .venv from (requirements.lock pins
  the packages for CPython 3.11, not the interpreter);
- `versions.onnxruntime_library`: the library's absolute path, which names where the checkout lies.
Everything else, the other versions and the lock's sha256 included, is decided by the checkout and compared
byte for byte: a change of requirements.lock is a change of the golden records, to be committed with it.

Rewriting them after a deliberate change:
    build/nnx-conformance run --output OUT/report.json --source-revision feedc0de
    .venv/bin/python tests/e2e/golden_records.py OUT/report.json
"""
import json
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TESTED_PROFILES = ("feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo")
SET_ASIDE = ("platform", "python", "onnxruntime_library")   # keys of `versions`, for the reasons above


def written_form(document) -> str:
    """The bytes the product writes a JSON document as (json_python.h: Python's json.dumps, exactly)."""
    return json.dumps(document, sort_keys=True, indent=2) + "\n"


def normalised(record: dict) -> str:
    """The record in its written form, each SET_ASIDE value of `versions` replaced by a note naming it."""
    versions = dict(record["versions"])
    for key in SET_ASIDE:
        assert key in versions, f"versions.{key} is missing from {record['profile']}'s record"
        versions[key] = f"set aside: versions.{key}"
    return written_form({**record, "versions": versions})


def golden_path(profile: str) -> Path:
    return GOLDEN / f"{profile}.json"


def write_goldens(report_path: Path) -> None:
    records = {r["profile"]: r for r in json.loads(Path(report_path).read_text())["profiles"]}
    for profile in TESTED_PROFILES:
        golden_path(profile).write_text(normalised(records[profile]))


if __name__ == "__main__":
    write_goldens(Path(sys.argv[1]))
