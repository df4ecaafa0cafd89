"""Re-judging kept outputs against running again (doc/rejudge.md; issue "Every way it is run"), side by side in
one script. Run by hand (a minute or two), not by `make test`:

    .venv/bin/python bench/rejudge_bench.py [--cli build/nnx-conformance] [--work DIR]

torchvision's resnet18 (tests/models/profiles.json `resnet18-torchscript`) is run once; then, interleaved,
minimum of REPEATS:
- execute:  `execute REPORT ROOT --output EX --keep-outputs` (load, parity; what answering "does it pass under
            another tolerance?" costs without kept outputs) against `rejudge EX --rtol 0 --atol 0` (the same
            question answered from the kept outputs);
- matrix:   `matrix` of the report under 1.24.4 and 1.32.0 (two child processes) against `rejudge` of it;
- Python:   nnx.rejudge(EX, rtol=0, atol=0) called 10 times in one process (the import paid once) against the
            command line's `rejudge`, per call;
and what keeping costs: the bytes of the kept-outputs folders beside the documents against the artifacts'.
Prints one line per measurement. Exits 0 when every run completed, whatever the figures."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REPEATS = 5


def wall(cmd) -> float:
    started = time.perf_counter()
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 16):  # 16: zero tolerance makes the cases mismatches, as it should
        sys.exit(f"{' '.join(map(str, cmd))} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def side_by_side(label: str, slow: list, fast: list) -> float:
    wall(slow), wall(fast)  # warm both once
    slows, fasts = [], []
    for _ in range(REPEATS):
        slows.append(wall(slow))
        fasts.append(wall(fast))
    a, b = min(slows), min(fasts)
    print(f"{label}: {a:.3f} s against rejudge {b:.3f} s ({a / b:.1f}x faster), min of {REPEATS} each, interleaved")
    return a / b


def python_loop(cli: Path, executed: Path) -> None:
    script = ("import sys, time; sys.path.insert(0, sys.argv[1]); import nnx.export_conformance as nnx; "
              "t = time.perf_counter(); [nnx.rejudge(sys.argv[2], rtol=0, atol=0) for _ in range(10)]; "
              "print((time.perf_counter() - t) / 10)")
    per_call = float(subprocess.run([sys.executable, "-c", script, str(cli.parent / "python"), str(executed)],
                                    capture_output=True, text=True, check=True).stdout)
    command = min(wall([cli, "rejudge", executed, "--rtol", "0", "--atol", "0", "--output",
                        executed.with_name("r.json")]) for _ in range(REPEATS))
    print(f"python: nnx.rejudge in a loop {per_call * 1000:.1f} ms a call against the command line's "
          f"{command * 1000:.1f} ms ({command / per_call:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=Path, default=REPO / "build" / "nnx-conformance")
    parser.add_argument("--work", type=Path, default=REPO / "build" / "rejudge-bench")
    args = parser.parse_args()
    work, cli = args.work, args.cli.resolve()
    work.mkdir(parents=True, exist_ok=True)
    profiles = [p for p in json.loads((REPO / "tests/models/profiles.json").read_text())
                if p["name"] == "resnet18-torchscript"]
    for profile in profiles:  # the factory's file named from the work folder
        profile["module"] = str(REPO / "tests" / "models" / profile["module"])
    (work / "profiles.json").write_text(json.dumps(profiles))
    report, root = work / "report.json", work / "report-artifacts"
    wall([cli, "run", "--profile-file", work / "profiles.json", "--output", report, "--force", "--quiet",
          "--no-localize"])
    executed = work / "ex.json"
    side_by_side("execute", [cli, "execute", report, root, "--output", executed, "--keep-outputs"],
                 [cli, "rejudge", executed, "--rtol", "0", "--atol", "0", "--output", work / "r.json"])
    matrix = work / "m.json"
    side_by_side("matrix of 2 releases", [cli, "matrix", report, root, "--output", matrix,
                                          "--onnxruntime-version", "1.24.4", "--onnxruntime-version", "1.32.0"],
                 [cli, "rejudge", matrix, "--rtol", "0", "--atol", "0", "--output", work / "rm.json"])
    python_loop(cli, executed)
    kept, artifacts = folder_bytes(work / "ex-outputs"), folder_bytes(root)
    print(f"kept outputs: {kept / 1024:.0f} KiB beside the executed report ({100 * kept / artifacts:.2f}% of the "
          f"artifacts' {artifacts / (1 << 20):.1f} MiB); the matrix's {folder_bytes(work / 'm-outputs') / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
