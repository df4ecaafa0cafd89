"""Build what is asked (doc/building-and-testing.md, "The two commands"): `make conformance` builds the CMake
target nnx_run_programs — the command line and the Python package nnx that the brief's script imports —
and nothing of the tests, benchmarks or fuzzers; `make test` builds every target before it runs them.

Read from the build's own Ninja plan (`ninja -t commands`) and from make's dry run (`make -n`, which runs
no recipe: no bootstrap, no build). A unity batch (cmake/unity_batches.cmake) stands for the files it includes."""
import re
import subprocess
from pathlib import Path

from conftest import BUILD, REPO


def commands_for(target: str) -> str:
    done = subprocess.run(["ninja", "-C", str(BUILD), "-t", "commands", target], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def make_dry_run(goal: str) -> list[str]:
    done = subprocess.run(["make", "-n", goal], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "cmake --build" in line]


UNITY = BUILD.resolve() / "unity"
BATCHED = re.compile(r'^#include "(\S+\.cc)"$', re.M)


def compiled_sources(commands: str) -> set[str]:
    """The files `commands` compile, by repository path; a unity batch by the files it includes (the unit
    tests' batches from tests/, every other from src/)."""
    sources = set()
    for compiled in map(Path, re.findall(r"-c (\S+\.cc)", commands)):
        if compiled.resolve().parent == UNITY:
            folder = "tests/" if compiled.name.startswith("nnx_tests_") else "src/"
            sources |= {folder + name for name in BATCHED.findall(compiled.read_text())}
        else:
            sources.add(str(compiled).split(str(REPO) + "/", 1)[-1])
    return sources


def test_the_run_programs_compile_the_command_line_and_the_python_module_and_no_test_source():
    sources = compiled_sources(commands_for("nnx_run_programs"))
    assert "src/cli/main.cc" in sources and "src/python/module.cc" in sources, sorted(sources)
    outside = sorted(s for s in sources if not s.startswith("src/") and not s.endswith("onnx.pb.cc"))
    assert outside == [], outside


def test_make_conformance_builds_only_the_run_programs_and_make_test_builds_every_target():
    conformance = make_dry_run("conformance")
    assert conformance and all(line.rstrip().endswith("--target nnx_run_programs") for line in conformance), conformance
    test = make_dry_run("test")
    assert any("--target" not in line for line in test), test


def test_each_core_source_is_compiled_once_and_a_batch_names_no_absolute_path():
    """Every src/ file of the core, the CLI and the Python module is compiled exactly once (alone or in one
    batch), and a batch includes its files by their path under src/, so it reads the same in every clone
    (the compile cache's hits across clones, cmake/unity_batches.cmake)."""
    commands = commands_for("nnx_run_programs")
    compiled = re.findall(r"-c (\S+\.cc)", commands)
    batches = [Path(c) for c in compiled if Path(c).resolve().parent == UNITY]
    assert batches, "no unity batch: the default build compiles the core in batches (NNX_UNITY_BUILD)"
    included = [name for batch in batches for name in BATCHED.findall(batch.read_text())]
    assert len(included) == len(set(included)), sorted(included)
    assert not any(name.startswith("/") for name in included), included
    alone = {str(c).split(str(REPO) + "/", 1)[-1] for c in compiled if Path(c).resolve().parent != UNITY}
    assert not alone & {"src/" + name for name in included}, sorted(alone)
