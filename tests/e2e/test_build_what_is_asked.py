"""Build what is asked (doc/building-and-testing.md, "The two commands"): `make conformance` builds the CMake
target nnx_run_programs — the command line and the Python package nnx that the brief's script imports —
and nothing of the tests, benchmarks or fuzzers; `make test` builds every target before it runs them.

Read from the build's own Ninja plan (`ninja -t commands`) and from make's dry run (`make -n`, which runs
no recipe: no bootstrap, no build)."""
import re
import subprocess

from conftest import BUILD, REPO


def commands_for(target: str) -> str:
    done = subprocess.run(["ninja", "-C", str(BUILD), "-t", "commands", target], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def make_dry_run(goal: str) -> list[str]:
    done = subprocess.run(["make", "-n", goal], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "cmake --build" in line]


def test_the_run_programs_compile_the_command_line_and_the_python_module_and_no_test_source():
    commands = commands_for("nnx_run_programs")
    compiled = set(re.findall(r"-c (\S+\.cc)", commands))
    sources = {path.split(str(REPO) + "/", 1)[-1] for path in compiled}
    assert "src/cli/main.cc" in sources and "src/python/module.cc" in sources, sorted(sources)
    outside = sorted(s for s in sources if not s.startswith("src/") and not s.endswith("onnx.pb.cc"))
    assert outside == [], outside


def test_make_conformance_builds_only_the_run_programs_and_make_test_builds_every_target():
    conformance = make_dry_run("conformance")
    assert conformance and all(line.rstrip().endswith("--target nnx_run_programs") for line in conformance), conformance
    test = make_dry_run("test")
    assert any("--target" not in line for line in test), test
