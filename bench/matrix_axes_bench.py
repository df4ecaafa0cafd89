"""A runtime matrix over the settings axes (doc/runtime-matrix.md, "Axes"; issue "Every way it is run"), timed
against its own cells and against Polygraphy, in one script. Run by hand (several minutes), not by `make test`:

    .venv/bin/python bench/matrix_axes_bench.py [--cli build/nnx-conformance] [--work DIR] [--repeats N]

Two module profiles of tests/models/profiles.json are run into one report: torchvision's resnet18 (a CNN, random
weights) and a 2-layer nn.TransformerEncoder (`transformer-encoder-torchscript`); no download. Then, interleaved,
minimum of REPEATS:
- axes:       `matrix --jobs 2` of the report under ONNX Runtime 1.24.1 over `--optimization-level
              ORT_DISABLE_ALL/ORT_ENABLE_BASIC/ORT_ENABLE_ALL` x `--intra-op-threads 1` x CPUExecutionProvider and
              OpenVINOExecutionProvider (when 1.24.1's OpenVINO runs here): its wall time against half the sum of
              its cells' own recorded `seconds` (what two cores at once could at best give) — goal within 1.2x;
- polygraphy: the CPU cells alone (`matrix --jobs 2`, the three levels) against `polygraphy run model.onnx
              --onnxrt --providers cpu --graph-optimization-level L --load-inputs --load-outputs` of each model at
              each level, two at once, comparing ONNX Runtime with the same stored outputs (its own virtualenv,
              build/polygraphy-venv, which scripts/setup_polygraphy.sh makes; its onnxruntime is 1.30.0, CPU only:
              Polygraphy cannot run the OpenVINO cells). Polygraphy takes no intra-op thread count (ONNX Runtime's
              default there); our cells run one thread each.
Prints one line per measurement. Exits 0 when every run completed, whatever the figures."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROFILES = ("resnet18-torchscript", "transformer-encoder-torchscript")
LEVELS = ("ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_ALL")
RELEASE = "1.24.1"  # the runtime cache's onnxruntime-openvino: both providers in one release
POLYGRAPHY = REPO / "build" / "polygraphy-venv" / "bin"
BASELINE = REPO / "bench" / "module_baseline.py"


def timed(cmd, accept=(0,)) -> float:
    started = time.perf_counter()
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in accept:
        sys.exit(f"{' '.join(map(str, cmd))} exited {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def make_report(cli: Path, work: Path) -> tuple[Path, Path]:
    profiles = [p for p in json.loads((REPO / "tests/models/profiles.json").read_text()) if p["name"] in PROFILES]
    for profile in profiles:  # the factory's file named from the work folder
        profile["module"] = str(REPO / "tests" / "models" / profile["module"])
    (work / "profiles.json").write_text(json.dumps(profiles))
    report = work / "report.json"
    timed([cli, "run", "--profile-file", work / "profiles.json", "--output", report, "--force", "--quiet",
           "--no-localize"])
    return report, work / "report-artifacts"


def openvino_runs(cli: Path, report: Path, root: Path, work: Path) -> bool:
    """Whether 1.24.1's OpenVINO provider loads and runs the report here (its load stage passed)."""
    probe = work / "openvino-probe.json"
    subprocess.run([str(c) for c in (cli, "execute", report, root, "--output", probe, "--onnxruntime-version", RELEASE,
                                     "--provider", "OpenVINOExecutionProvider")], capture_output=True, text=True)
    if not probe.is_file():
        return False
    return all(r["stages"]["load"]["status"] == "passed" for r in json.loads(probe.read_text())["profiles"])


def matrix_command(cli, report, root, output, providers):
    cmd = [cli, "matrix", report, root, "--output", output, "--jobs", "2", "--onnxruntime-version", RELEASE,
           "--intra-op-threads", "1"]
    for level in LEVELS:
        cmd += ["--optimization-level", level]
    for provider in providers:
        cmd += ["--provider", provider]
    return cmd


def cells_seconds(matrix: Path) -> list[float]:
    return [r["seconds"] for r in json.loads(matrix.read_text())["runtimes"]]


def polygraphy_commands(root: Path, work: Path) -> list[list]:
    """One `polygraphy run` per model and level, against the tensors the report stored, as Polygraphy's JSON."""
    commands = []
    for name in PROFILES:
        folder, out = root / name, work / "polygraphy" / name
        timed([POLYGRAPHY / "python", BASELINE, "polygraphy", folder, out])
        record = next(r for r in json.loads((work / "report.json").read_text())["profiles"] if r["profile"] == name)
        rtol, atol = record["tolerances"]["rtol"], record["tolerances"]["atol"]
        for level in LEVELS:
            commands.append([POLYGRAPHY / "polygraphy", "run", folder / "model.onnx", "--onnxrt", "--providers", "cpu",
                             "--graph-optimization-level", level, "--load-inputs", out / "inputs.json",
                             "--load-outputs", out / "outputs.json", "--rtol", str(rtol), "--atol", str(atol)])
    return commands


def two_at_once(commands) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda c: timed(c, accept=(0, 1)), commands))  # 1: Polygraphy's own mismatch, a finding
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=Path, default=REPO / "build" / "nnx-conformance")
    parser.add_argument("--work", type=Path, default=REPO / "build" / "matrix-axes-bench")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    work, cli = args.work.resolve(), args.cli.resolve()
    work.mkdir(parents=True, exist_ok=True)
    report, root = make_report(cli, work)
    providers = ["CPUExecutionProvider"]
    if openvino_runs(cli, report, root, work):
        providers.append("OpenVINOExecutionProvider")
    else:
        print(f"OpenVINOExecutionProvider of {RELEASE} does not load here: the CPU cells only")
    axes = matrix_command(cli, report, root, work / "axes.json", providers)
    cpu = matrix_command(cli, report, root, work / "cpu.json", ["CPUExecutionProvider"])
    poly = polygraphy_commands(root, work) if (POLYGRAPHY / "polygraphy").is_file() else None
    accept = (0, 15, 16)  # a cell's failing record (e.g. OpenVINO beyond the tolerance) is a finding, not an error
    timed(axes, accept), timed(cpu, accept)  # warm each once
    if poly:
        two_at_once(poly)
    runs = {"axes": [], "cpu": [], "poly": []}
    for _ in range(args.repeats):
        runs["axes"].append((timed(axes, accept), cells_seconds(work / "axes.json")))
        runs["cpu"].append((timed(cpu, accept), cells_seconds(work / "cpu.json")))
        if poly:
            runs["poly"].append(two_at_once(poly))
    report_figures(runs, providers, len(poly or []), args.repeats)


def report_figures(runs, providers, polygraphy_runs, repeats) -> None:
    print(f"cores: {os.cpu_count()}; ONNX Runtime {RELEASE}; models: {', '.join(PROFILES)}; "
          f"min of {repeats} interleaved runs each")
    wall, cells = min(runs["axes"])
    half = sum(cells) / 2
    print(f"axes: matrix --jobs 2 of {len(cells)} cells ({len(LEVELS)} levels x 1 thread x {' and '.join(providers)}): "
          f"{wall:.3f} s wall against half the sum of its cells' seconds {half:.3f} s = {wall / half:.2f}x "
          f"(goal <= 1.2x); cells {', '.join(f'{s:.3f}' for s in cells)} s; all walls "
          f"{', '.join(f'{w:.3f}' for w, _ in runs['axes'])}")
    cpu_wall, cpu_cells = min(runs["cpu"])
    print(f"cpu: matrix --jobs 2 of the {len(cpu_cells)} CPU cells: {cpu_wall:.3f} s wall against half its cells' "
          f"{sum(cpu_cells) / 2:.3f} s = {cpu_wall / (sum(cpu_cells) / 2):.2f}x")
    if runs["poly"]:
        poly = min(runs["poly"])
        print(f"polygraphy: {polygraphy_runs} `polygraphy run --onnxrt --providers cpu --graph-optimization-level L` "
              f"(2 models x {len(LEVELS)} levels), two at once: {poly:.3f} s against the CPU matrix's {cpu_wall:.3f} s "
              f"= {poly / cpu_wall:.2f}x; all {', '.join(f'{p:.3f}' for p in runs['poly'])}")
    else:
        print("polygraphy: not set up (scripts/setup_polygraphy.sh makes build/polygraphy-venv)")


if __name__ == "__main__":
    main()
