"""The installed C++ package (doc/cpp-api.md, "Using the core from C++").

`cmake --install` of this build into a prefix under the build folder, then tests/consumer/ — a project
that knows only find_package(nnx_conformance) — is configured and built against that prefix and executes a
real report (both tested profiles, run for real) with the public header alone: no Python in that process.
"""
import shutil
import subprocess

import pytest

from conftest import BUILD, REPO, run_cli


def run(*args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def consumer():
    prefix = BUILD / "installed-package" / "prefix"
    shutil.rmtree(prefix.parent, ignore_errors=True)
    run("cmake", "--install", BUILD, "--prefix", prefix)
    for installed in ("bin/nnx-conformance", "lib/libnnx_core.a", "lib/libnnx_conformance.a",
                      "include/nnx/conformance.h", "lib/cmake/nnx_conformance/nnx_conformanceConfig.cmake"):
        assert (prefix / installed).is_file(), installed
    build = prefix.parent / "consumer-build"
    run("cmake", "-S", REPO / "tests" / "consumer", "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}")
    run("cmake", "--build", build)
    return prefix, build / "nnx_consumer"


def test_a_consumer_built_against_the_installed_package_executes_the_real_report(consumer, both_profiles,
                                                                                  tmp_path):
    prefix, program = consumer
    done, report, root = both_profiles
    assert done.returncode == 0, done.stderr
    usage = subprocess.run([str(program), str(tmp_path / "unused")], capture_output=True, text=True)
    assert usage.returncode == 2, usage.stderr
    executed = subprocess.run([str(program), str(root.parent / "report.json"), str(root)], capture_output=True,
                              text=True, timeout=900)
    assert executed.returncode == 0, executed.stdout + executed.stderr
    lines = executed.stdout.splitlines()
    assert lines[:3] == ["nnx 0.1.0", "validate: ok (2 record(s))", "verify: ok"]
    cli = run_cli("execute", root.parent / "report.json", root)
    assert cli.returncode == 0, cli.stderr
    summary = [line for line in cli.stdout.splitlines() if line.startswith("feedfwd-")]
    assert len(summary) == 2 and lines[3:5] == summary
    installed_cli = run(prefix / "bin" / "nnx-conformance", "validate", root.parent / "report.json")
    assert "valid (2 record(s))" in installed_cli.stdout


def test_the_consumer_refuses_a_tampered_artifact(consumer, both_profiles, tmp_path):
    _, program = consumer
    _, report, root = both_profiles
    copy = tmp_path / "root"
    shutil.copytree(root, copy)
    model = copy / report["profiles"][0]["artifacts"]["directory"] / "model.onnx"
    data = bytearray(model.read_bytes())
    data[-1] ^= 0xFF
    model.write_bytes(bytes(data))
    done = subprocess.run([str(program), str(root.parent / "report.json"), str(copy)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 14, "a flipped byte is hash-mismatch (14), as execute records it"
    assert "verify: refused (hash-mismatch, exit code 14)" in done.stdout and "model.onnx" in done.stdout
