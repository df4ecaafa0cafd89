"""Issue 28, crashes: a 16,000-deep chain of folders in a profile folder is refused by name (a profile folder
holds at most 64 levels of folders: src/artifacts/artifact_folder.h, doc/record-format.md §7), never a stack
overflow, in `verify`, in `execute` and in Python's `verify_artifacts`.

The chain is real (made and removed one level at a time through folder descriptors: its paths are far longer
than PATH_MAX), in a copy of a real report's artifact folder; each child gets the hard limit of open files as
its soft one, so that a walk holding a descriptor per level would get as deep as it can.
"""
import os
import resource
import subprocess
import sys

from conftest import BUILD, CLI
from hostile_support import TORCHSCRIPT, copy_report

DEPTH = 16_000
LEVEL = "d"
REFUSAL = "folders nested deeper than 64 levels"


def make_chain(folder, depth):
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(LEVEL, dir_fd=fd)
            deeper = os.open(LEVEL, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)


def remove_chain(folder):
    """Removes folder/d/d/... from the top: the second level is moved up beside the first, the first removed."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        while os.path.isdir(os.path.join(folder, LEVEL)):
            try:
                os.rename(f"{LEVEL}/{LEVEL}", "next", src_dir_fd=fd, dst_dir_fd=fd)
            except FileNotFoundError:
                os.rmdir(LEVEL, dir_fd=fd)
                break
            os.rmdir(LEVEL, dir_fd=fd)
            os.rename("next", LEVEL, src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)


def every_descriptor_allowed():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, preexec_fn=every_descriptor_allowed, **kw)


PYTHON_VERIFY = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import nnx.export_conformance as ec
report = json.load(open(sys.argv[2]))
record = next(r for r in report["profiles"] if r["profile"] == sys.argv[4])
try:
    ec.verify_artifacts(record, sys.argv[3])
    print("verified")
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
'''


def test_a_16000_deep_folder_chain_is_refused_by_name_never_a_crash(both_profiles, tmp_path):
    report, root = copy_report(both_profiles, tmp_path)
    folder = root / TORCHSCRIPT
    make_chain(folder, DEPTH)
    try:
        verified = run([str(CLI), "verify", str(report), str(root)])
        executed = run([str(CLI), "execute", str(report), str(root), "--output", str(tmp_path / "again.json")])
        script = tmp_path / "verify.py"
        script.write_text(PYTHON_VERIFY)
        python = run([sys.executable, str(script), str(BUILD / "python"), str(report), str(root), TORCHSCRIPT])
    finally:
        remove_chain(folder)
    for done in (verified, executed, python):
        assert done.returncode >= 0, f"killed by signal {-done.returncode}: {done.stderr[-2000:]}"
    assert verified.returncode == 14, verified.stdout + verified.stderr  # unreadable: hash-mismatch, as execute
    assert REFUSAL in verified.stderr and "feedfwd-fp32-dynamo: every artifact verified" in verified.stdout
    assert executed.returncode == 14, executed.stdout + executed.stderr[-2000:]
    assert REFUSAL in (tmp_path / "again.json").read_text()
    assert python.returncode == 0 and python.stdout.startswith("ArtifactIOError: "), python.stdout + python.stderr
    assert REFUSAL in python.stdout
