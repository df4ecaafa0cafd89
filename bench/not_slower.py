"""Not slower than before one pipeline (issue "One pipeline for every model kind"): the tested run (`run`, both
tested profiles) and resnet18's module run (tests/models/resnet18.json, dynamo) of this checkout's build
against a baseline checkout's build, in the same script, runs interleaved, minimum of REPEATS wall times each.
Each side runs from its own checkout (its own profile file, its worker, its staged Python package) so each is
what its commit did. Goal: ours within 5% of the baseline's.

    python3 bench/not_slower.py BASELINE_CHECKOUT [--repeats N]

BASELINE_CHECKOUT is a built checkout of the earlier commit (git worktree add DIR COMMIT, then its own
`cmake --build DIR/build`); prints one Markdown table row per measurement."""
import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def commands(checkout: Path, out: Path) -> dict:
    cli = str(checkout / "build" / "nnx-conformance")
    return {
        "tested run (both tested profiles)": [cli, "run", "--output", str(out / "tested" / "report.json"), "--quiet"],
        "resnet18 module run (dynamo)": [cli, "run", "--profile-file", str(checkout / "tests" / "models" / "resnet18.json"),
                                         "--output", str(out / "resnet18" / "report.json"), "--quiet"],
    }


def timed(command: list, cwd: Path, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        sides = {"ours": REPO, "baseline": args.baseline.resolve()}
        best: dict = {}
        for _ in range(args.repeats):
            for side, checkout in sides.items():  # interleaved: the machine's drift falls on both
                out = Path(scratch) / side
                for what, command in commands(checkout, out).items():
                    folder = Path(command[command.index("--output") + 1]).parent
                    seconds = timed(command, checkout, folder)
                    best[(what, side)] = min(best.get((what, side), seconds), seconds)
        print(f"| run (min of {args.repeats}, interleaved) | ours | baseline | ours / baseline | goal <= 1.05 |")
        print("|---|---|---|---|---|")
        for what in commands(REPO, Path(scratch)):
            ours, base = best[(what, "ours")], best[(what, "baseline")]
            ratio = ours / base
            print(f"| {what} | {ours:.2f} s | {base:.2f} s | {ratio:.3f} | {'held' if ratio <= 1.05 else 'missed'} |")


if __name__ == "__main__":
    main()
