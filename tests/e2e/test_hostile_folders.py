"""Issue point 2 — no link is ever followed; FIFOs, devices and sockets are refused without blocking; a file
larger than its recorded size is refused without being read.

Each attack is made with real files on a copy of a real report's artifact folder and checked through the
real CLI (`verify`, and `execute` with the spy library standing in for ONNX Runtime so that a test can
prove no session was created), and, for the run's own check stage, through a hostile exporter worker that
leaves such entries in the folder it exports to.
"""
import os
import shutil
import socket
import stat
import subprocess
import time

import pytest

from conftest import CLI
from hostile_support import (TORCHSCRIPT, cli, copy_report, hostile_worker, marked_env, only_record,
                                  assert_no_process_left, assert_valid_report)
from support import spy_env, stage_statuses

VERIFY_SECONDS = 60  # every refusal below takes well under a second; a blocked open would take forever


def run_verify_and_execute(report, root, tmp_path):
    """verify and execute the report against root: (verify result, execute result, spy log lines)."""
    started = time.monotonic()
    verified = cli("verify", report, root, env=dict(os.environ), timeout=VERIFY_SECONDS)
    extra, log = spy_env(tmp_path)
    env = dict(os.environ)
    env.update(extra)
    executed = cli("execute", report, root, "--output", tmp_path / "executed.json", env=env,
                   timeout=VERIFY_SECONDS)
    assert time.monotonic() - started < VERIFY_SECONDS
    sessions = log.read_text().splitlines() if log.exists() else []
    return verified, executed, sessions


def torchscript_load_problems(tmp_path):
    import json
    report = json.loads((tmp_path / "executed.json").read_text())
    record = next(r for r in report["profiles"] if r["profile"] == TORCHSCRIPT)
    assert record["failure"] == "hash-mismatch" and record["stages"]["load"]["detail"]["loaded"] is False
    assert record["stages"]["parity"]["status"] == "not_run"
    return record["stages"]["load"]["detail"]["problems"]


def replace_model(root, make):
    folder = root / TORCHSCRIPT
    original = (folder / "model.onnx").read_bytes()
    (folder / "model.onnx").unlink()
    make(folder / "model.onnx", original)
    return original


def make_symlink_to_identical_copy(path, original):
    # The link's target holds exactly the recorded bytes: it would verify if it were followed.
    target = path.parent.parent.parent / "elsewhere-model.onnx"
    target.write_bytes(original)
    os.symlink(target, path)


def make_fifo(path, original):
    os.mkfifo(path)  # nobody ever writes to it: opening it for reading the usual way would block forever


def make_socket(path, original):
    # bind() with a relative name (socket paths are limited to 108 bytes); the file outlives the process.
    subprocess.run(["python3", "-c", "import socket; socket.socket(socket.AF_UNIX).bind('model.onnx')"],
                   cwd=path.parent, check=True)
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def make_char_device(path, original):
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # the kernel's /dev/zero: endless zeros
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD (make test runs as root in CI)")


@pytest.mark.parametrize("make,problem", [
    (make_symlink_to_identical_copy, "model.onnx: a symlink"),
    (make_fifo, "model.onnx: not a regular file"),
    (make_socket, "model.onnx: not a regular file"),
    (make_char_device, "model.onnx: not a regular file"),
], ids=["symlink-to-identical-bytes", "fifo-without-writer", "unix-socket", "char-device-dev-zero"])
def test_links_fifos_sockets_and_devices_are_refused_without_blocking(both_profiles, tmp_path, make, problem):
    report, root = copy_report(both_profiles, tmp_path)
    replace_model(root, make)
    verified, executed, sessions = run_verify_and_execute(report, root, tmp_path)
    assert verified.returncode == 14
    assert f"{TORCHSCRIPT}: {problem}" in verified.stderr.splitlines()
    assert "feedfwd-fp32-dynamo: every artifact verified" in verified.stdout
    assert executed.returncode == 14, executed.stdout + executed.stderr
    assert torchscript_load_problems(tmp_path) == [problem]
    assert sessions == ["CreateSessionFromArray"], "only the untouched dynamo record may create a session"


def test_a_symlinked_profile_folder_holding_identical_files_never_verifies(both_profiles, tmp_path):
    report, root = copy_report(both_profiles, tmp_path)
    real = tmp_path / "real-folder"
    shutil.move(root / TORCHSCRIPT, real)
    os.symlink(real, root / TORCHSCRIPT)
    verified, executed, sessions = run_verify_and_execute(report, root, tmp_path)
    assert verified.returncode == 14 and f"{TORCHSCRIPT}: {TORCHSCRIPT}: a symlink" in verified.stderr
    assert executed.returncode == 14
    assert torchscript_load_problems(tmp_path) == [f"{TORCHSCRIPT}: a symlink"]
    assert sessions == ["CreateSessionFromArray"]


def test_links_to_the_root_and_dangling_links_in_the_folder_are_named_never_entered(both_profiles, tmp_path):
    # A symlinked folder pointing at / would make any walker that follows links read the whole machine.
    report, root = copy_report(both_profiles, tmp_path)
    folder = root / TORCHSCRIPT
    os.symlink("/", folder / "whole-machine")
    os.symlink(tmp_path / "does-not-exist", folder / "dangling")
    os.symlink("loop", folder / "loop")
    verified, executed, sessions = run_verify_and_execute(report, root, tmp_path)
    assert verified.returncode == 14
    named = {line for line in verified.stderr.splitlines() if line.startswith(TORCHSCRIPT)}
    assert named == {f"{TORCHSCRIPT}: {p}: a symlink" for p in ("dangling", "loop", "whole-machine")}
    assert executed.returncode == 14
    assert sorted(torchscript_load_problems(tmp_path)) == [f"{p}: a symlink" for p in ("dangling", "loop",
                                                                                       "whole-machine")]


def test_a_file_larger_than_recorded_is_refused_without_being_read(both_profiles, tmp_path):
    """A 64 GiB sparse model.onnx whose first bytes are the recorded ones: refused from its size alone;
    strace shows that not one read() was made on it."""
    if shutil.which("strace") is None:
        pytest.fail("strace is needed to watch the system calls (make bootstrap installs it)")
    report, root = copy_report(both_profiles, tmp_path)

    def make_huge(path, original):
        with open(path, "wb") as f:
            f.write(original)
            f.truncate(64 << 30)

    original = replace_model(root, make_huge)
    trace = tmp_path / "trace.txt"
    started = time.monotonic()
    done = subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=openat,read,pread64,mmap", "-o", str(trace),
                           str(CLI), "verify", str(report), str(root)],
                          capture_output=True, text=True, timeout=VERIFY_SECONDS)
    assert time.monotonic() - started < 20, "hashing 64 GiB would take minutes"
    assert done.returncode == 14
    assert (f"{TORCHSCRIPT}: model.onnx: hash mismatch (larger than the recorded {len(original)} bytes)"
            in done.stderr.splitlines())
    model = str(root / TORCHSCRIPT / "model.onnx")
    lines = trace.read_text().splitlines()
    assert any("openat(" in line and model in line for line in lines), "the file was opened (and fstat'ed)"
    reads = [line for line in lines if ("read(" in line or "mmap(" in line) and f"<{model}>" in line]
    assert reads == [], reads[:5]


def test_a_file_grown_by_one_byte_is_refused(both_profiles, tmp_path):
    report, root = copy_report(both_profiles, tmp_path)
    with open(root / TORCHSCRIPT / "model.onnx", "ab") as f:
        f.write(b"\0")
    verified, executed, sessions = run_verify_and_execute(report, root, tmp_path)
    assert verified.returncode == 14 and executed.returncode == 14
    (problem,) = torchscript_load_problems(tmp_path)
    assert problem.startswith("model.onnx: hash mismatch (larger than the recorded")


@pytest.mark.parametrize("mode,problem", [
    ("symlinked-model", "model.onnx: a symlink"),
    ("fifo-artifact", "model.onnx.data: not a regular file"),
    ("socket-artifact", "listener.sock: not a regular file"),
])
def test_an_exporter_leaving_links_fifos_or_sockets_is_a_checker_error(both_profiles, tmp_path, mode, problem):
    """The run's own check stage lists the folder the (hostile) exporter wrote: a link, a FIFO or a socket is
    named, never followed or opened for reading, and the run does not block."""
    _, _, artifacts = both_profiles
    model = tmp_path / "real-model.onnx"
    shutil.copyfile(artifacts / TORCHSCRIPT / "model.onnx", model)
    env, marker = marked_env(hostile_worker(tmp_path, mode, model))
    started = time.monotonic()
    done = cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT, env=env, timeout=120)
    assert time.monotonic() - started < 120
    assert done.returncode == 13, done.stdout + done.stderr
    record = only_record(tmp_path / "r.json")
    assert record["failure"] == "checker-error" and record["level"] == "none"
    assert stage_statuses(record) == ["passed", "passed", "failed", "not_run", "not_run"]
    assert problem in record["stages"]["check"]["detail"]
    assert_valid_report(tmp_path / "r.json")
    assert_no_process_left(marker)
