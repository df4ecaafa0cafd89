"""The runtime matrix section of scripts/run_benchmarks.py (`--sections matrix`): the wall time of one
`nnx-conformance matrix` of both tested profiles' report under the five releases of the default set
(scripts/runtimes.lock, in the runtime cache that `make runtimes` fills), sequential (--jobs 1) against two at
once (--jobs 2), interleaved A, B, A, B, ... and the minimum of 5 of each; printed as a table with the ratio."""
import os
import subprocess
import time
from pathlib import Path

VERSIONS = ["1.16.3", "1.20.1", "1.24.4", "1.30.0", "1.32.0"]
REPEATS = 5
TITLE = "Runtime matrix: 5 ONNX Runtime releases x both tested profiles, --jobs 1 vs --jobs 2"


class SetupError(Exception):
    pass


def _cache() -> Path:
    return Path(os.environ.get("NNX_CACHE", Path.home() / ".cache" / "nnx-conformance"))


def _wall(cmd):
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t, done


def matrix_section(cli, work):
    """Returns the section's Markdown rows; SetupError when a release is not cached or the run fails."""
    missing = [v for v in VERSIONS if not (_cache() / "runtimes" / v / f"libonnxruntime.so.{v}").is_file()]
    if missing:
        raise SetupError(f"ONNX Runtime {', '.join(missing)} not in the runtime cache: run `make runtimes`")
    folder = Path(work) / "matrix"
    report = folder / "report.json"
    done = subprocess.run([cli, "run", "--output", str(report), "--force", "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SetupError(f"the run for the matrix's report failed: {done.stdout}{done.stderr}")
    base = [cli, "matrix", str(report), str(folder / "report-artifacts"), "--output", str(folder / "matrix.json")]
    for v in VERSIONS:
        base += ["--onnxruntime-version", v]
    walls = {1: [], 2: []}
    for _ in range(REPEATS):
        for jobs in (1, 2):
            wall, done = _wall(base + ["--jobs", str(jobs)])
            if done.returncode not in (0, 15):  # 15: 1.16.3 refuses the dynamo export (load-error), a finding
                raise SetupError(f"matrix --jobs {jobs} exited {done.returncode}: {done.stderr}")
            walls[jobs].append(wall)
    one, two = min(walls[1]), min(walls[2])
    cells = len(VERSIONS)
    return [
        f"Both tested profiles' report under {', '.join(VERSIONS)} ({cells} child processes, each opening its",
        "release and executing both records with the native reference); wall time of the whole command, min of "
        f"{REPEATS}, runs interleaved. The machine's cores: {os.cpu_count()}.",
        "",
        "| --jobs | min wall | all runs | vs --jobs 1 |",
        "|---|---|---|---|",
        f"| 1 (sequential) | {one:.3f} s | {', '.join(f'{w:.3f}' for w in walls[1])} | 1.00x |",
        f"| 2 | {two:.3f} s | {', '.join(f'{w:.3f}' for w in walls[2])} | {one / two:.2f}x faster |",
    ]
