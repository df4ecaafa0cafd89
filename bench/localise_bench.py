"""Localisation against torch's own verify_onnx_program(compare_intermediates=True), side by side in one script
(issue "Where and why it went wrong"; doc/localisation.md). Run by hand (minutes), not by `make test`:

    scripts/setup_torch_verify.sh                      # torch's side's own virtualenv, once
    .venv/bin/python bench/localise_bench.py [--cli build/nnx-conformance] [--work DIR]

For torchvision's resnet18 and mobilenet_v3_small (tests/models/zoo.py) at [2, 3, 224, 224], dynamo:
- torch's side (bench/torch_verify_side.py in build/torch-verify-venv): the export, then verify_onnx_program
  timed, its process's resident set sampled; the values it compared (matched by name);
- ours: `run --localize` of the same module (a passing record, so every value is compared and none departs),
  its process tree sampled (bench/limits_memory.py's sampler: core, worker, forked child); the localisation's
  own seconds, less the export it makes again and the module's build (torch's side does both before it is
  timed), and less the worker's imports of the exporter's modules too (the second figure).
Coverage: values aligned, and every PyTorch value left out with its reason, against torch's matched values.
Memory: resnet18 at batch 8 (its intermediates 250 MiB) localised with a 32 MiB bound and with a 1 GiB one;
the core's peak over its footprint (the same run with --no-localize) against the values' sum and the largest.
Prints one line per measurement. Exits 0 when every run completed, whatever the figures."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from limits_memory import sampled  # noqa: E402  (one process-tree sampler)

REPO = Path(__file__).resolve().parent.parent
TORCH_PYTHON = REPO / "build" / "torch-verify-venv" / "bin" / "python"
MIB = 1 << 20


def profile_file(work: Path, factory: str, batch: int) -> Path:
    path = work / f"{factory}-{batch}.json"
    path.write_text(json.dumps([{"name": factory, "exporter": "dynamo", "module": f"{REPO / 'tests/models/zoo.py'}:{factory}",
                                 "inputs": [{"name": "image", "shape": ["batch", 3, 224, 224], "dtype": "float32"}],
                                 "dims": {"batch": [batch]}}]))
    return path


def ours(cli: str, work: Path, factory: str, batch: int, *flags: str) -> tuple[dict, dict, dict]:
    out = work / f"{factory}-{batch}-{'-'.join(f.strip('-') for f in flags)}.json"
    peaks, _, _, code, stderr = sampled([cli, "run", "--profile-file", str(profile_file(work, factory, batch)),
                                         "--output", str(out), "--force", "--quiet", *flags])
    if code != 0:
        raise SystemExit(f"run {factory} {flags}: exit {code}\n{stderr[-2000:]}")
    record = json.loads(out.read_text())["profiles"][0]
    return record, record["stages"]["parity"]["detail"].get("localisation", {}), peaks


def timing_line(factory: str, cli: str, work: Path) -> None:
    side = subprocess.run([str(TORCH_PYTHON), str(REPO / "bench" / "torch_verify_side.py"), factory, "2,3,224,224"],
                          capture_output=True, text=True, timeout=1800, cwd=work)
    if side.returncode != 0:
        raise SystemExit(f"torch's side of {factory}: {side.stderr[-2000:]}")
    theirs = json.loads(side.stdout.strip().splitlines()[-1])
    _, found, peaks = ours(cli, work, factory, 2, "--localize")
    steps = dict(found["pytorch_step_seconds"])
    without_export = found["seconds"] - steps.get("export", 0.0) - steps.get("module", 0.0)
    imports = found["pytorch_seconds"] - sum(steps.values())
    coverage = found["coverage"]
    print(f"{factory} time: torch verify_onnx_program {theirs['verify_seconds']:.1f} s; ours {without_export:.2f} s "
          f"({theirs['verify_seconds'] / without_export:.1f}x faster), {without_export - imports:.2f} s without the "
          f"worker's exporter imports ({theirs['verify_seconds'] / (without_export - imports):.1f}x); levels "
          + ", ".join(f"{lv['level']} {lv['seconds']:.2f} s" for lv in found["levels"]))
    print(f"{factory} coverage: torch compared {theirs['values_compared']} of {theirs['fx_values']} FX values (the "
          f"others skipped silently); ours aligned {coverage['aligned']} of {coverage['reference_values']} PyTorch values, "
          f"{len(coverage['left_out'])} left out each with its reason, "
          f"{coverage['onnx_values_without_counterpart']} ONNX values without a counterpart")
    print(f"{factory} memory: torch's process {theirs['rss_before_mib']:.0f} -> {theirs['rss_peak_mib']:.0f} MiB; "
          f"ours core {peaks.get('core', 0) / 1024:.0f} MiB, worker {peaks.get('worker', 0) / 1024:.0f} MiB, forked "
          f"child {peaks.get('forked child', 0) / 1024:.0f} MiB")


def memory_lines(cli: str, work: Path) -> None:
    _, _, footprint = ours(cli, work, "resnet18", 8, "--no-localize")
    for bound in ("32", "1024"):
        _, found, peaks = ours(cli, work, "resnet18", 8, "--localize", "--localize-memory", bound)
        limits, over = found["limits"], (peaks["core"] - footprint["core"]) / 1024
        groups = max(lv["groups"] for lv in found["levels"])
        print(f"resnet18 batch 8, bound {bound} MiB: core peak {peaks['core'] / 1024:.0f} MiB, footprint "
              f"{footprint['core'] / 1024:.0f} MiB, over {over:.0f} MiB; values' sum {limits['values_bytes'] / MIB:.0f} "
              f"MiB, largest {limits['largest_value_bytes'] / MIB:.1f} MiB; up to {groups} groups a level")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=str(REPO / "build" / "nnx-conformance"))
    parser.add_argument("--work", default=str(REPO / "build" / "bench-work" / "localise"))
    args = parser.parse_args()
    if not TORCH_PYTHON.is_file():
        raise SystemExit(f"no {TORCH_PYTHON}: run scripts/setup_torch_verify.sh first")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    for factory in ("resnet18", "mobilenet_v3_small"):
        timing_line(factory, args.cli, work)
    memory_lines(args.cli, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
