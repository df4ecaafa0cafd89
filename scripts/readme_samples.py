#!/usr/bin/env python3
"""Regenerates every sample output of README.md and doc/*.md from a real run (or, with --check, compares).

    .venv/bin/python scripts/readme_samples.py [--build DIR] [--check]

A sample is the text between `<!-- sample: NAME -->` and `<!-- /sample -->` in a page; SAMPLES below says
what each one runs. The commands are shown as a newcomer types them at the top of a checkout
(`build/nnx-conformance run ...`) and are run exactly so, in a temporary folder that holds a symbolic link
to every top-level entry of the checkout (`build` links to DIR, default $NNX_BUILD_DIR or build/), so the
checkout itself is never written. The samples run in the newcomer's order (PAGES, then each page's own
order) in that one folder, so a later sample sees what an earlier one wrote (`try/conformance.json`).

What differs from run to run is replaced by rules (`placeholders`): the temporary folder, the build folder,
the checkout, the Python installation .venv was made from, the home folder, process ids and durations; lines
printed in the order parallel parts finish are sorted (FINISH_ORDER). Everything else is the run's own output, stdout and stderr together as a terminal shows
them, and a `# exit N` line after a command that failed without saying its exit code itself.
A run's largest error (`max_abs_error=...`) is its own output too, but for a model of torchvision's or a
user's it depends on the CPU's kernels (AVX-512 or not, in ONNX Runtime and in PyTorch), so the check compares
a page with a run with those figures set aside (CPU_FIGURE; a matrix's drift between cells, CPU_DRIFT); any
other change of a line is drift.
Without --check the pages are rewritten in place; with --check nothing is written and the exit code is 1
when a page's sample differs from what its commands print now (the differences on stderr), 0 otherwise.
tests/e2e/test_readme_newcomer.py runs the check.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parent.parent
# The newcomer's path: the README first, then the pages it links to.
PAGES = ["README.md", "doc/cli.md", "doc/python-api.md", "doc/profile-files.md", "doc/runtime-matrix.md",
         "doc/reading-a-failure.md"]
MARKER = re.compile(r"<!-- sample: ([\w-]+) -->\n(.*?)<!-- /sample -->", re.S)
PYTHON = "PYTHONPATH=build/python .venv/bin/python"
CLI = "build/nnx-conformance"
RUNTIMES = " ".join(f"--onnxruntime-version {v}" for v in ("1.16.3", "1.20.1", "1.24.4", "1.30.0", "1.32.0"))


@dataclasses.dataclass(frozen=True)
class Sample:
    """What one sample shows: `commands` run one after the other (shown as `$ command` and its output), or
    `show_file` (a checkout file shown whole), or `raw` (one command whose output is markdown, shown as is)."""
    commands: tuple = ()
    show_file: Optional[str] = None
    raw: bool = False


SAMPLES = {
    # README.md
    "cli-minute": Sample(commands=(
        f"{CLI} run --output try/conformance.json",
        f"{CLI} validate try/conformance.json",
        f"{CLI} verify try/conformance.json try/conformance-artifacts",
        f"NNX_PYTHON=/bin/false {CLI} execute try/conformance.json try/conformance-artifacts --output try/again.json",
        f"{CLI} report try/conformance.json --html try/conformance.html",
    )),
    "python-minute-code": Sample(show_file="doc/examples/minute.py"),
    "python-minute": Sample(commands=(f"{PYTHON} doc/examples/minute.py",)),
    "own-model-file": Sample(show_file="tests/models/resnet18.json"),
    "own-model": Sample(commands=(
        f"{CLI} run --profile-file tests/models/resnet18.json --output try/mine/report.json",
        f"NNX_PYTHON=/bin/false {CLI} execute try/mine/report.json try/mine/report-artifacts --output try/mine/again.json",
    )),
    "matrix-axes": Sample(commands=(
        f"{CLI} matrix try/mine/report.json try/mine/report-artifacts --output try/mine/axes.json --jobs 2 "
        "--onnxruntime-version 1.24.1 --onnxruntime-version 1.32.0 --optimization-level ORT_DISABLE_ALL "
        "--optimization-level ORT_ENABLE_ALL --provider CPUExecutionProvider --provider OpenVINOExecutionProvider",
    )),
    "own-model-check": Sample(commands=(
        f"{CLI} check --output try/gru.json --name gru --exporter torchscript --module tests/models/zoo.py:gru "
        """--inputs '[{"name": "sequence", "shape": ["batch", 12, 8]}]' --dims '{"batch": [2, 1]}'""",
    )),
    "when-parity-fails": Sample(commands=(
        f"{CLI} run --profile-file tests/models/floor.json --output try/floor/report.json --html try/floor/report.html",
        f"NNX_PYTHON=/bin/false {CLI} execute try/floor/report-artifacts/floor-torchscript/repro/report.json "
        "try/floor/report-artifacts/floor-torchscript/repro/artifacts",
    )),
    # doc/cli.md
    "cli-typo": Sample(commands=(
        f"{CLI} run --outptu try/r.json",
        f"{CLI} run --output try/r.json --jobs 0",
    )),
    "cli-report": Sample(commands=(f"{CLI} report try/conformance.json",), raw=True),
    # doc/python-api.md
    "python-errors-code": Sample(show_file="doc/examples/errors.py"),
    "python-errors": Sample(commands=(f"{PYTHON} doc/examples/errors.py",)),
    # doc/profile-files.md
    "profiles-small-file": Sample(show_file="doc/examples/small-profiles.json"),
    "profiles-small": Sample(commands=(f"{CLI} run --profile-file doc/examples/small-profiles.json "
                              f"--output try/small/r.json",)),
    "profiles-tokens-file": Sample(show_file="doc/examples/tokens-profile.json"),
    "profiles-tokens": Sample(commands=(f"{CLI} run --profile-file doc/examples/tokens-profile.json "
                              f"--output try/tokens/r.json",)),
    "profiles-bad-file": Sample(show_file="doc/examples/bad-profiles.json"),
    "profiles-bad": Sample(commands=(f"{CLI} run --profile-file doc/examples/bad-profiles.json "
                              f"--output try/bad/r.json",)),
    # doc/runtime-matrix.md
    "matrix": Sample(commands=(
        f"{CLI} matrix try/conformance.json try/conformance-artifacts --output try/matrix.json --jobs 2 {RUNTIMES}",
    )),
    # doc/reading-a-failure.md (on a copy: the samples before it read the artifacts as the run wrote them)
    "tampered": Sample(commands=(
        "cp -r try/conformance-artifacts try/tampered-artifacts",
        "printf 'x' >> try/tampered-artifacts/feedfwd-fp32-dynamo/model.onnx",
        f"{CLI} verify try/conformance.json try/tampered-artifacts",
        f"NNX_PYTHON=/bin/false {CLI} execute try/conformance.json try/tampered-artifacts --output try/tampered.json",
    )),
}
FENCE = {".py": "python", ".json": "json", ".sh": "sh"}


def placeholders(work: Path, build: Path) -> list[tuple[re.Pattern, str]]:
    """The rules that make a run's output the same on every run: (pattern, replacement), applied in order."""
    def path_rule(path: Path, by: str) -> list[tuple[re.Pattern, str]]:
        spellings = {str(path), os.path.realpath(path)}
        ordered = sorted(spellings, key=len, reverse=True)
        return [(re.compile(re.escape(s) + "/"), by + "/" if by else "") for s in ordered] + \
               [(re.compile(re.escape(s) + r"\b"), by or ".") for s in ordered]
    rules = path_rule(work, "") + path_rule(build.resolve(), "build") + path_rule(build, "build")
    rules += path_rule(REPO, "") + sum((path_rule(s, "") for s in build_source(build)), [])
    rules += path_rule(Path(sys.base_prefix), "<python>")  # the interpreter's own files (a warning's place)
    rules += path_rule(Path.home(), "~")
    rules += [(re.compile(r"\bpid \d+"), "pid <pid>"),
              (re.compile(r"\b\d+\.\d+ ?(?:ms|s)\b"), "<duration>")]
    return rules


def build_source(build: Path) -> list[Path]:
    """The checkout a build folder was configured from (its paths are baked into the build), when it says."""
    cache = build / "CMakeCache.txt"
    found = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.+)$", cache.read_text(), re.M) if cache.is_file() else None
    return [Path(found.group(1))] if found else []


# Lines a command prints in the order its parallel parts finish (`matrix --jobs 2`: `onnxruntime X: done`):
# each run of consecutive such lines is sorted.
FINISH_ORDER = re.compile(r"(?:^onnxruntime [^\n]+: done\n)+", re.M)


def stable(text: str, rules: list[tuple[re.Pattern, str]]) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return FINISH_ORDER.sub(lambda found: "".join(sorted(found.group(0).splitlines(True))), text)


def run_command(command: str, work: Path, rules) -> str:
    """The command's stdout and stderr together (as a terminal shows them), made stable, and its exit code as a
    `# exit N` line when it did not say it itself (`exit code: N`) and it is not 0."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("NNX_") or key == "NNX_CACHE"}
    env["PWD"] = str(work)
    done = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=1800)
    out = stable(done.stdout, rules)
    if done.returncode != 0 and f"exit code: {done.returncode}" not in out:
        out += ("" if out.endswith("\n") or not out else "\n") + f"# exit {done.returncode}\n"
    return out


def render(name: str, sample: Sample, work: Path, rules) -> str:
    """The text between a sample's markers, from a run of its commands now."""
    if sample.show_file:
        path = REPO / sample.show_file
        return f"```{FENCE.get(path.suffix, '')}\n{path.read_text()}```\n"
    if sample.raw:
        return run_command(sample.commands[0], work, rules).rstrip("\n") + "\n"
    shown = []
    for command in sample.commands:
        shown.append(f"$ {command}\n{run_command(command, work, rules)}")
    return "```console\n" + "".join(shown).rstrip("\n") + "\n```\n"


def samples_in(text: str) -> list[tuple[str, str]]:
    """The (name, current text) of every sample of a page, in its order."""
    return [(found.group(1), found.group(2)) for found in MARKER.finditer(text)]


def replace_samples(text: str, rendered: dict[str, str]) -> str:
    return MARKER.sub(lambda found: f"<!-- sample: {found.group(1)} -->\n{rendered[found.group(1)]}<!-- /sample -->",
                      text)


def marker_problems(pages: dict[str, str]) -> list[str]:
    """Samples a page names that SAMPLES lacks, samples given twice, and samples no page shows."""
    problems, seen = [], []
    for page, text in pages.items():
        for name, _ in samples_in(text):
            if name not in SAMPLES:
                problems.append(f"{page}: sample {name} is not defined in scripts/readme_samples.py")
            if name in seen:
                problems.append(f"{page}: sample {name} is shown twice")
            seen.append(name)
    problems += [f"sample {name} is shown by no page" for name in SAMPLES if name not in seen]
    return problems


def make_work_folder(build: Path) -> tempfile.TemporaryDirectory:
    """A temporary folder that looks like the top of the checkout: a link to each entry, `build` to `build`."""
    folder = tempfile.TemporaryDirectory(prefix="nnx-samples-")
    work = Path(folder.name)
    for entry in REPO.iterdir():
        if entry.name not in ("build", ".git", "conformance"):
            (work / entry.name).symlink_to(entry)
    (work / "build").symlink_to(build.resolve())
    return folder


def regenerate(build: Path, progress: Callable[[str], None] = lambda _: None) -> dict[str, tuple[str, str]]:
    """Every page's (current text, text with every sample from a run now), in the newcomer's order."""
    pages = {page: (REPO / page).read_text() for page in PAGES}
    problems = marker_problems(pages)
    if problems:
        raise SystemExit("\n".join(problems))
    with make_work_folder(build) as folder:
        work = Path(folder)
        rules = placeholders(work, build)
        rendered = {}
        for page, text in pages.items():
            for name, _ in samples_in(text):
                progress(f"{page}: {name}")
                rendered[name] = render(name, SAMPLES[name], work, rules)
    return {page: (text, replace_samples(text, rendered)) for page, text in pages.items()}


CPU_FIGURE = re.compile(r"(\bmax_abs_error=)[-+0-9.e]+")
# A matrix's drift between two cells (`largest |difference| 2.0e-06 (28672 ulps`): the kernels' too.
CPU_DRIFT = re.compile(r"(\|difference\| )[-+0-9.e]+ \(\d+ (ulps?)")


def comparable(text: str) -> str:
    """The text with every CPU-dependent error figure set aside."""
    return CPU_DRIFT.sub(r"\1<figure> (<figure> \2", CPU_FIGURE.sub(r"\1<figure>", text))


def differences(result: dict[str, tuple[str, str]]) -> list[str]:
    """A unified diff of each page whose samples differ from the run's (the page's text first), error figures
    that depend on the CPU set aside (CPU_FIGURE)."""
    out = []
    for page, (now, fresh) in result.items():
        if comparable(now) != comparable(fresh):
            out.append("".join(difflib.unified_diff(now.splitlines(True), fresh.splitlines(True),
                                                    f"{page} (as committed)", f"{page} (as run now)")))
    return out


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="readme_samples", description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path(os.environ.get("NNX_BUILD_DIR") or REPO / "build"))
    parser.add_argument("--check", action="store_true", help="compare the pages with a run; write nothing")
    args = parser.parse_args(argv)
    if not (args.build / "nnx-conformance").is_file():
        print(f"readme_samples: {args.build}/nnx-conformance is missing (make build, or --build DIR)", file=sys.stderr)
        return 2
    result = regenerate(args.build, lambda step: print(f"readme_samples: {step}", file=sys.stderr))
    if args.check:
        diff = differences(result)
        sys.stderr.write("".join(diff))
        return 1 if diff else 0
    for page, (now, fresh) in result.items():
        if now != fresh:
            (REPO / page).write_text(fresh)
            print(f"readme_samples: rewrote {page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
