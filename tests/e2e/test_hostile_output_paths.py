"""Issue 28, "Output paths": only a regular file or a new file is written, never an input, an artifact, a
file inside an artifacts root or another output of the same command (src/artifacts/output_paths.h); roots
that contain one another are locked against each other (src/artifacts/root_lock.h).

Real command lines on real nodes: FIFOs (os.mkfifo), sockets, a character device with /dev/null's major and
minor made with os.mknod under the test's folder (never /dev/null itself), symlinks, hard links; real
artifacts from the session's run of both profiles; the real Python package and the brief's script. Every
refusal is a usage error (exit 2) naming the path and the way out, and leaves the node, the input and the
artifacts as they were.
"""
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time

import pytest

from conftest import BUILD, BUNDLED_ORT, REPO
from hostile_support import (TORCHSCRIPT, assert_no_process_left, cli, copy_report, finish, marked_env, start_cli,
                             tree_digest, wait_for)
from support import write_json

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

HOOK = "NNX_TEST_PAUSE_AFTER_VERIFY"
KINDS = {"fifo": "is a FIFO (named pipe)", "char-device": "is a character device", "socket": "is a socket",
         "folder": "is a folder"}
RULE = "only a regular file or a new file is written"


@pytest.fixture
def evidence(both_profiles, tmp_path):
    """(report, artifacts root): a private copy of the session's run of both profiles."""
    return copy_report(both_profiles, tmp_path)


def make_node(kind, path):
    """A node of `kind` at `path`; returns what must stay open while it is used (the socket)."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "char-device":
        os.mknod(path, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        return listener
    else:
        path.mkdir()
    return None


def identity(path):
    """What a replaced node would change: its type, inode and device numbers (links not followed)."""
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev


def assert_refused(done, *needles):
    """Exit 2, one line on stderr holding every needle, nothing on stdout."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    (line,) = done.stderr.splitlines()
    assert line.startswith("nnx-conformance: usage error: "), line
    for needle in needles:
        assert needle in line, (needle, line)
    assert done.stdout == ""


def command(template, **fill):
    return [str(fill[a[1:-1]]) if a.startswith("{") else a for a in template]


# (label in the message, arguments); {node} is the node, {fresh} an artifacts root not made yet, {out} a new report.
NODE_COMMANDS = {
    "run-output": ("--output", ["run", "--output", "{node}", "--artifacts", "{fresh}", "--profile", TORCHSCRIPT]),
    "run-html": ("--html", ["run", "--output", "{out}", "--artifacts", "{fresh}", "--html", "{node}"]),
    "run-timings": ("--timings", ["run", "--output", "{out}", "--artifacts", "{fresh}", "--timings", "{node}"]),
    "execute-output": ("--output", ["execute", "{report}", "{root}", "--output", "{node}"]),
    "execute-junit": ("--junit", ["execute", "{report}", "{root}", "--junit", "{node}"]),
    "report-html": ("--html", ["report", "{report}", "--html", "{node}"]),
    "report-markdown": ("--markdown", ["report", "{report}", "--markdown", "{node}"]),
    "report-junit": ("--junit", ["report", "{report}", "--junit", "{node}"]),
    "matrix-output": ("--output", ["matrix", "{report}", "{root}", "--output", "{node}", "--onnxruntime", "{lib}"]),
    "matrix-merge-out": ("OUT", ["matrix-merge", "{node}", "{report}"]),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(NODE_COMMANDS))
def test_an_output_onto_a_device_fifo_socket_or_folder_is_refused_and_the_node_is_untouched(evidence, tmp_path,
                                                                                             kind, name):
    report, root = evidence
    node = tmp_path / f"node-{kind}"
    keep = make_node(kind, node)
    before, artifacts = identity(node), tree_digest(root)
    label, template = NODE_COMMANDS[name]
    env, _ = marked_env()
    done = cli(*command(template, node=node, fresh=tmp_path / "fresh", out=tmp_path / "r.json", report=report,
                        root=root, lib=BUNDLED_ORT), env=env, timeout=120)
    assert_refused(done, f"{label} {node} {KINDS[kind]}", RULE, "give the path of the report file")
    assert identity(node) == before, "the node was replaced"
    assert tree_digest(root) == artifacts
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "fresh").exists()
    if keep:
        keep.close()


def test_an_output_that_is_an_input_of_the_same_command_is_refused_and_the_input_is_unchanged(evidence, tmp_path):
    report, root = evidence
    original = report.read_bytes()
    (tmp_path / "alias").symlink_to(tmp_path)
    os.link(report, tmp_path / "hard-link.json")
    profile_file = write_json(tmp_path / "profiles.json", [{"name": TORCHSCRIPT, "exporter": "torchscript"}])
    profiles = profile_file.read_bytes()
    env, _ = marked_env()
    for spelling in [report, tmp_path / "alias" / report.name, tmp_path / "x" / ".." / report.name,
                     tmp_path / "hard-link.json"]:
        for flag in ("--html", "--markdown", "--junit"):
            done = cli("report", report, flag, spelling, env=env, timeout=120)
            assert_refused(done, f"{flag} {spelling} is an input of the same command (FILE {report})",
                           "write the output to another file")
    cases = [
        (["execute", report, root, "--output", report], f"--output {report} is an input of the same command (FILE {report})"),
        (["matrix", report, root, "--output", report, "--onnxruntime", BUNDLED_ORT],
         f"--output {report} is an input of the same command (REPORT {report})"),
        (["matrix-merge", report, report], f"OUT {report} is an input of the same command (PART {report})"),
        (["run", "--profile-file", profile_file, "--output", profile_file, "--artifacts", tmp_path / "fresh"],
         f"--output {profile_file} is an input of the same command (--profile-file {profile_file})"),
    ]
    for args, needle in cases:
        assert_refused(cli(*args, env=env, timeout=120), needle)
    assert report.read_bytes() == original and profile_file.read_bytes() == profiles
    assert not (tmp_path / "fresh").exists() and not (tmp_path / "x").exists()


def test_an_output_inside_an_artifacts_root_is_refused_and_the_next_verify_passes(evidence, tmp_path):
    report, root = evidence
    model = root / TORCHSCRIPT / "model.onnx"
    artifacts = tree_digest(root)
    (tmp_path / "into-root").symlink_to(root / TORCHSCRIPT)
    env, _ = marked_env()
    cases = [
        (["run", "--output", model, "--artifacts", root, "--profile", TORCHSCRIPT], f"--output {model}"),
        (["run", "--output", tmp_path / "r.json", "--artifacts", root, "--force", "--html",
          root / TORCHSCRIPT / "page.html"], f"--html {root / TORCHSCRIPT / 'page.html'}"),
        (["execute", report, root, "--output", root / TORCHSCRIPT / "again.json"],
         f"--output {root / TORCHSCRIPT / 'again.json'}"),
        (["execute", report, root, "--markdown", tmp_path / "into-root" / "x.md"],
         f"--markdown {tmp_path / 'into-root' / 'x.md'}"),
        (["execute", report, root, "--output", tmp_path / "new" / ".." / root.name / "r.json"],
         f"--output {tmp_path / 'new' / '..' / root.name / 'r.json'}"),
        (["matrix", report, root, "--output", root / "matrix.json", "--onnxruntime", BUNDLED_ORT],
         f"--output {root / 'matrix.json'}"),
    ]
    for args, needle in cases:
        assert_refused(cli(*args, env=env, timeout=120), needle, f"is inside the artifacts root {root}",
                       "write it outside the root")
        assert tree_digest(root) == artifacts, f"{args} changed the artifacts"
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "new").exists()
    verified = cli("verify", report, root, env=env, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_two_outputs_of_one_command_that_are_one_file_are_refused(evidence, tmp_path):
    report, _ = evidence
    page = tmp_path / "page"
    (tmp_path / "alias").symlink_to(tmp_path)
    env, _ = marked_env()
    cases = [
        (["report", report, "--html", page, "--junit", page], f"--junit {page} is the same file as --html {page}"),
        (["report", report, "--html", page, "--markdown", tmp_path / "alias" / "page"],
         f"--markdown {tmp_path / 'alias' / 'page'} is the same file as --html {page}"),
        (["run", "--output", page, "--artifacts", tmp_path / "fresh", "--junit", page],
         f"--junit {page} is the same file as --output {page}"),
        (["run", "--output", page, "--artifacts", tmp_path / "fresh", "--timings", page],
         f"--timings {page} is the same file as --output {page}"),
    ]
    for args, needle in cases:
        assert_refused(cli(*args, env=env, timeout=120), needle, "give each output its own file")
        assert not page.exists()
    page.write_text("kept\n")
    os.link(page, tmp_path / "hard-link")
    assert_refused(cli("report", report, "--html", page, "--junit", tmp_path / "hard-link", env=env, timeout=120),
                   f"--junit {tmp_path / 'hard-link'} is the same file as --html {page}")
    assert page.read_text() == "kept\n" and not (tmp_path / "fresh").exists()


def paused_run(tmp_path, root, name):
    """A real run on `root`, held in its load stage (the pausing fake): (process, marker, pause file)."""
    pause = tmp_path / f"paused-{name}"
    env, marker = marked_env({HOOK: pause})
    first = start_cli("run", "--output", tmp_path / f"{name}.json", "--artifacts", root, "--profile", TORCHSCRIPT,
                      env=env)
    wait_for(lambda: pause.exists() or first.poll() is not None, 300, "the first run to reach its load stage")
    assert first.poll() is None, first.communicate()
    return first, marker, pause


def release(first, marker, pause):
    pause.unlink()
    rc, out, err = finish(first)
    assert rc == 0, out + err
    assert_no_process_left(marker)


def test_a_run_inside_a_root_another_run_holds_is_refused_and_touches_nothing(tmp_path):
    outer = tmp_path / "P"
    first, marker, pause = paused_run(tmp_path, outer, "outer")
    inner = outer / TORCHSCRIPT
    before = tree_digest(outer)
    env, _ = marked_env()
    started = time.monotonic()
    done = cli("run", "--output", tmp_path / "second.json", "--artifacts", inner, "--force", "--profile",
               TORCHSCRIPT, env=env)
    assert time.monotonic() - started < 10
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert f"another nnx-conformance run holds {outer.resolve()} (pid {first.pid}), which contains {inner}" in line
    assert "roots that contain one another are locked against each other" in line
    assert tree_digest(outer) == before and not (tmp_path / "second.json").exists()
    release(first, marker, pause)
    assert cli("verify", tmp_path / "outer.json", outer, env=env).returncode == 0


def test_a_run_on_a_folder_holding_a_busy_root_is_refused_and_a_sibling_root_runs(tmp_path):
    outer = tmp_path / "P"
    inner = outer / "inner"
    first, marker, pause = paused_run(tmp_path, inner, "inner")
    before = tree_digest(outer)
    env, _ = marked_env()
    done = cli("run", "--output", tmp_path / "second.json", "--artifacts", outer, "--force", "--profile",
               TORCHSCRIPT, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert f"another nnx-conformance run holds a folder inside {outer} (pid {first.pid})" in line
    assert tree_digest(outer) == before and not (tmp_path / "second.json").exists()
    sibling = cli("run", "--output", tmp_path / "sibling.json", "--artifacts", outer / "sibling", "--profile",
                  TORCHSCRIPT, env=env)
    assert sibling.returncode == 0, sibling.stdout + sibling.stderr
    release(first, marker, pause)


def test_the_python_front_ends_follow_the_same_rule(evidence, tmp_path):
    report, root = evidence
    model = root / TORCHSCRIPT / "model.onnx"
    artifacts = tree_digest(root)
    script = subprocess.run([sys.executable, str(REPO / "scripts" / "check_export_conformance.py"), "--output",
                             str(model), "--artifacts", str(root), "--profile", TORCHSCRIPT],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "NNX_BUILD_DIR": str(BUILD)})
    assert script.returncode == 2, script.stdout + script.stderr
    assert f"--output {model} is inside the artifacts root {root}" in script.stderr
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    before = identity(fifo)
    with pytest.raises(ec.UsageError, match=re.escape(f"{fifo} is a FIFO (named pipe)")):
        ec.save_report(json.loads(report.read_text()), fifo)
    assert identity(fifo) == before
    with pytest.raises(ec.UsageError, match=re.escape(f"is an input of the same command (the report {report})")):
        ec.runtime_matrix(report, root, runtimes=[BUNDLED_ORT], output=report)
    with pytest.raises(ec.UsageError, match="is inside the artifacts root"):
        ec.check_output_paths([("output", root / "r.json")], roots=[("the artifacts root", root)])
    assert tree_digest(root) == artifacts
