"""A module at the documented limits (doc/record-format.md §10; worker/TENSORS.md, "Case tensors as files"):
one module profile whose 8 match cases' inputs are 64 MiB of float32 each (512 MiB in all, the limit) and
whose outputs' float64 oracle copies are 64 MiB each (the limit per stored tensor), run end to end with the
command line. Prints the record's status and level, the wall
time and the peak resident memory of the largest process of the run's tree (the core or the worker).

    .venv/bin/python bench/channel_limits.py [--cli build/nnx-conformance] [--work DIR]

Exits 0 when the record is passed at level executed, 1 otherwise. The profile is also
tests/e2e/test_module_at_the_limits.py's (in `make test`); its memory per process: bench/limits_memory.py.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 4096  # 4096 x 4096 float32 = 64 MiB per input at batch 1


def profile() -> dict:
    heights = [WIDTH - k for k in range(8)]  # 8 match cases, each input at most 64 MiB: 512 MiB in all at most
    return {"name": "at-the-limits", "exporter": "torchscript",
            "module": f"{ROOT / 'tests' / 'models' / 'worker_models.py'}:halves",
            "inputs": [{"name": "x", "shape": ["batch", "h", "w"], "dtype": "float32"}],
            "dims": {"batch": [1], "h": heights, "w": [WIDTH]}}


def cli_and_work(doc: str, prefix: str) -> tuple[str, Path]:
    """The command line (--cli) and the work folder (--work, else a new temporary one) a bench run uses."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "nnx-conformance"))
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    return args.cli, Path(args.work or tempfile.mkdtemp(prefix=prefix))


def main() -> int:
    cli, work = cli_and_work(__doc__, "nnx-channel-limits-")
    work.mkdir(parents=True, exist_ok=True)
    (work / "profiles.json").write_text(json.dumps([profile()]))
    start = time.monotonic()
    done = subprocess.run([cli, "run", "--profile-file", str(work / "profiles.json"), "--output",
                           str(work / "report.json"), "--force", "--quiet"], capture_output=True, text=True)
    seconds = time.monotonic() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    record = json.loads((work / "report.json").read_text())["profiles"][0]
    cases = [c for c in record["input_cases"] if c["expect"] == "match"]
    print(f"status={record['status']} level={record['level']} failure={record.get('failure')} "
          f"match_cases={len(cases)} seconds={seconds:.1f} peak_rss_mib={peak_mib:.0f} exit={done.returncode}")
    if record["status"] != "passed":
        print(done.stderr[-3000:], file=sys.stderr)
    return 0 if (record["status"], record["level"]) == ("passed", "executed") else 1


if __name__ == "__main__":
    sys.exit(main())
