"""Ten Hugging Face dynamo profiles from one factory file (tests/models/hf_tiny.py: tiny configs, random weights,
nothing downloaded) run by the command line, against the exporters' own time for them: one Python process
that imports transformers once and calls torch.onnx.export(dynamo=True) on the same ten modules with the same
example and dynamic batch (doc/warm-parents.md: the run pays transformers' import once too).
Run by hand, not by `make test` or scripts/run_benchmarks.py (minutes):

    .venv/bin/python bench/hf_warm_imports.py [--cli build/nnx-conformance] [--work DIR] [--repeats N]

Each repeat runs the two one after the other (the run first); prints each one's wall seconds, the minimum of
each, their ratio (goal: the run within 1.3x of the baseline) and each profile's status and stage seconds.
Exits 0 when every run wrote its report, whatever the figures.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FACTORIES = REPO / "tests" / "models" / "hf_tiny.py"
PYTHON = REPO / ".venv" / "bin" / "python"
TEXT = ("bert", "bert_classifier", "gpt2", "distilbert", "t5_encoder", "roberta", "albert", "electra",
        "bert_classifier_five")
IMAGE = ("vit",)
TEXT_INPUT = {"name": "ids", "shape": ["batch", 8], "dtype": "int64", "range": [0, 100]}
IMAGE_INPUT = {"name": "image", "shape": ["batch", 3, 32, 32], "dtype": "float32"}

# The baseline: what a user would write to export the same ten modules, in one process.
BASELINE = """
import sys, time
start = time.perf_counter()
import torch
sys.path.insert(0, {folder!r})
import hf_tiny
for name in {names!r}:
    model = getattr(hf_tiny, name)()
    torch.manual_seed(1)
    example = torch.rand(2, 3, 32, 32) if name == "vit" else torch.randint(0, 100, (2, 8))
    batch = torch.export.Dim("batch", min=1)
    try:  # an exporter's failure is the run's export-error: both go on to the next model
        torch.onnx.export(model, (example,), {work!r} + "/" + name + ".onnx", dynamo=True, opset_version=18,
                          input_names=["image" if name == "vit" else "ids"], output_names=["hidden"],
                          dynamic_shapes=({{0: batch}},))
    except Exception as exc:
        print(name, "failed:", type(exc).__name__, file=sys.stderr)
print(time.perf_counter() - start)
"""


def profiles() -> list:
    return [{"name": f"{name.replace('_', '-')}-dynamo", "exporter": "dynamo", "module": f"{FACTORIES}:{name}",
             "inputs": [IMAGE_INPUT if name in IMAGE else TEXT_INPUT], "dims": {"batch": [2, 1, 3]},
             "outputs": ["hidden"], "opset": 18, "tolerances": {"rtol": 1e-4, "atol": 1e-4}}
            for name in TEXT + IMAGE]


def one_run(cli: Path, work: Path, k: int) -> float:
    """The run's wall seconds (its exit code is its profiles' first failure: only a missing report stops)."""
    report = work / f"report{k}.json"
    start = time.perf_counter()
    done = subprocess.run([cli, "run", "--profile-file", work / "profiles.json", "--output", report, "--force",
                           "--quiet", "--timings", work / f"timings{k}.json"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if not report.is_file():
        raise SystemExit(f"run {k} exited {done.returncode} and wrote no report: {done.stderr[-2000:]}")
    return seconds


def one_baseline(work: Path, k: int) -> float:
    out = work / f"baseline{k}"
    out.mkdir(exist_ok=True)
    script = BASELINE.format(folder=str(FACTORIES.parent), names=list(TEXT + IMAGE), work=str(out))
    start = time.perf_counter()
    done = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the baseline exited {done.returncode}: {done.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", type=Path, default=REPO / "build" / "nnx-conformance")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="nnx-hf-warm-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "profiles.json").write_text(json.dumps(profiles(), indent=1))
    runs, bases = [], []
    for k in range(args.repeats):
        runs.append(one_run(args.cli, work, k))
        bases.append(one_baseline(work, k))
        print(f"repeat {k}: run {runs[-1]:.1f} s, baseline {bases[-1]:.1f} s", flush=True)
    print(f"run {min(runs):.1f} s, baseline {min(bases):.1f} s: {min(runs) / min(bases):.2f}x (goal <= 1.3x)")
    for record in json.loads((work / "report0.json").read_text())["profiles"]:
        print(f"  {record['profile']}: {record['status']} ({record['failure'] or record['level']})")
    phases = json.loads((work / "timings0.json").read_text())["phases"]
    totals = {}
    for phase in phases:
        totals[phase["name"]] = totals.get(phase["name"], 0.0) + phase["seconds"]
    print("  run 0's phases (s): " + ", ".join(f"{n} {s:.1f}" for n, s in sorted(totals.items(), key=lambda x: -x[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
