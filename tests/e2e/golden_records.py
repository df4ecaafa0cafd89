"""The golden tested records (tests/golden/<class>/<profile>.json): what `run --source-revision feedc0de` writes
for the two tested profiles, one record per file in the writer's own form (Python's json.dumps, keys sorted,
indent 2, a final newline), with only the values this machine decides set aside, for each class of CPU whose
ONNX Runtime kernels give other float32 results.

The CPU's class (`machine_class`): ONNX Runtime's own kernels (MLAS) pick their code by the CPU's features,
and its AVX-512 kernels sum in another order than its AVX2/FMA ones, so the runtime's outputs, and with them
the records' max_abs_error, max_rel_error and margins, differ in the last bits between an Intel x86_64 CPU
with avx512f ("avx512") and one with AVX2 alone or an AMD one ("avx2"); everything else (the exports, the draws, the reference
and oracle outputs, every artifact's bytes) is the same on both. Each class has its goldens, compared byte
for byte on a machine of that class; a machine of another class has none, and the test says how to write
them.

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

Rewriting them after a deliberate change (a change that moves the records changes every class's goldens: the
run on a machine of each class writes its own):
    build/nnx-conformance run --output OUT/report.json --source-revision feedc0de
    .venv/bin/python tests/e2e/golden_records.py OUT/report.json
"""
import json
import sys
from pathlib import Path

GOLDENS = Path(__file__).resolve().parents[1] / "golden"


def machine_class(cpuinfo: str | None = None) -> str:
    """"avx512" for an Intel x86_64 CPU with avx512f, "avx2" for one with avx2 and for an AMD CPU with avx2
    (with avx512f too: measured on an AMD EPYC whose flags hold avx512f, avx512bw, avx512_vnni and avx512_bf16,
    both tested profiles' records are the avx2 goldens byte for byte: its kernels take their AVX2 paths), else
    "other" (from the first processor's vendor_id and flags in /proc/cpuinfo, or `cpuinfo`'s text)."""
    if cpuinfo is None:
        cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    lines = cpuinfo.splitlines()
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    vendor = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("vendor_id")), "")
    if "avx512f" in flags and vendor != "AuthenticAMD":
        return "avx512"
    return "avx2" if "avx2" in flags else "other"


GOLDEN = GOLDENS / machine_class()
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
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for profile in TESTED_PROFILES:
        golden_path(profile).write_text(normalised(records[profile]))


if __name__ == "__main__":
    write_goldens(Path(sys.argv[1]))
