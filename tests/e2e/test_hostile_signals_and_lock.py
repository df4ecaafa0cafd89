"""Issue point 5 — output safety: SIGINT/SIGTERM during a run leave either the old report or the new one,
never a mix, and no process; `--force` clears only the chosen profiles' folders and refuses a symlinked
artifacts root or profile folder; a second run on the same artifacts root refuses at once (a lock).

Real runs of the real CLI, real signals (os.kill), real folders. To reach a known point of a run without
racing it, the tests use the real worker's `hang` fault (the export never answers) or the engine's test
fake behind the runtime seam (tests/fakes/pausing_runtime.h, in the test tool nnx_conformance_pausing that
hostile_support starts when NNX_TEST_PAUSE_AFTER_VERIFY is set: the run pauses in its load stage, with the
worker still alive, until the test removes a file). The Python API gets the same signal handling as the
command line (src/app/run_report.h), shown here with a real SIGINT during a real export.
"""
import json
import os
import shutil
import signal
import time

import pytest

from conftest import BUILD
from hostile_support import (DYNAMO, TORCHSCRIPT, assert_no_process_left, assert_valid_report, cli,
                                  copy_report, finish, marked_env, only_record, processes_with, start_cli,
                                  tree_digest, wait_for)

OLD_REPORT = '{"format": "nnx.export-conformance/1", "status": "passed", "profiles": ["the previous report"]}\n'
HOOK = "NNX_TEST_PAUSE_AFTER_VERIFY"


def leftovers(folder):
    """Temporary or probe files a report writer could leave next to the report."""
    return [p.name for p in folder.iterdir() if ".tmp-" in p.name or ".probe-" in p.name or p.name.endswith(".part")]


def worker_started(marker, cli_pid):
    return any(pid != cli_pid for pid, _ in processes_with(marker))


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_export_keeps_the_old_report_and_leaves_no_process(tmp_path, sig, code):
    report = tmp_path / "r.json"
    report.write_text(OLD_REPORT)
    env, marker = marked_env({"NNX_TEST_FAULT": "hang"})
    proc = start_cli("run", "--output", report, "--profile", TORCHSCRIPT, env=env)
    # The export request is out once the profile folder exists and the worker runs (it hangs there).
    wait_for(lambda: (tmp_path / "r-artifacts" / TORCHSCRIPT).exists() and worker_started(marker, proc.pid), 120,
             "the export to start")
    time.sleep(0.5)
    started = time.monotonic()
    os.kill(proc.pid, sig)
    rc, out, err = finish(proc, timeout=30)
    assert time.monotonic() - started < 10, "the run must stop promptly"
    assert rc == code, out + err
    assert report.read_text() == OLD_REPORT
    assert err.count("\n") == 1 and "no report was written" in err and "Traceback" not in err
    assert_no_process_left(marker, grace=2.0)
    assert leftovers(tmp_path) == []


PYTHON_RUN = """
import sys
import nnx.export_conformance as ec
try:
    ec.run_profiles(sys.argv[1], ["feedfwd-fp32-torchscript"])
except KeyboardInterrupt:
    print("KeyboardInterrupt")
    sys.exit(42)
print("finished")
"""


def test_ctrl_c_in_the_python_api_stops_the_run_at_once_and_leaves_no_process(tmp_path):
    """The Python API runs through the same app sequence as the command line: SIGINT during an export (the
    worker hangs there) stops the worker's process group at once and raises KeyboardInterrupt; nothing
    is left running and the interpreter's own SIGINT handling is back afterwards."""
    import subprocess
    import sys

    env, marker = marked_env({"NNX_TEST_FAULT": "hang", "PYTHONPATH": str(BUILD / "python")})
    root = tmp_path / "root"
    proc = subprocess.Popen([sys.executable, "-c", PYTHON_RUN, str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    wait_for(lambda: (root / TORCHSCRIPT).exists() and worker_started(marker, proc.pid), 120, "the export to start")
    time.sleep(0.5)
    started = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert time.monotonic() - started < 10, "the run must stop promptly, not when the export would end"
    assert proc.returncode == 42 and out.strip() == "KeyboardInterrupt", out + err
    assert_no_process_left(marker, grace=2.0)
    assert sorted(p.name for p in root.iterdir()) == [TORCHSCRIPT], "no lock file is left in the root"


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_the_session_is_being_prepared_keeps_the_old_report(tmp_path, sig, code):
    report = tmp_path / "r.json"
    report.write_text(OLD_REPORT)
    pause = tmp_path / "paused"
    env, marker = marked_env({HOOK: pause})
    proc = start_cli("run", "--output", report, env=env)
    wait_for(lambda: pause.exists() or proc.poll() is not None, 300, "the run to reach its load stage")
    assert proc.poll() is None
    assert worker_started(marker, proc.pid), "the exporter worker is still alive at this point"
    os.kill(proc.pid, sig)
    rc, out, err = finish(proc, timeout=30)
    assert rc == code, out + err
    assert report.read_text() == OLD_REPORT
    assert_no_process_left(marker, grace=2.0)
    assert leftovers(tmp_path) == []
    assert not (tmp_path / "r-artifacts" / DYNAMO).exists(), "no later profile was started"


def test_signals_at_many_moments_leave_the_old_or_the_new_report_never_a_mix(tmp_path):
    """Real runs, each signalled after a different delay: from the CLI's start-up to past its end, spread
    over the duration of an unsignalled run measured first."""
    started = time.monotonic()
    calibration = cli("run", "--output", tmp_path / "calibration.json", "--profile", TORCHSCRIPT,
                      env=dict(os.environ))
    assert calibration.returncode == 0, calibration.stdout + calibration.stderr
    duration = time.monotonic() - started
    outcomes = []
    for i, fraction in enumerate([0.0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95, 1.5]):
        delay = fraction * duration
        folder = tmp_path / f"run{i}"
        folder.mkdir()
        report = folder / "r.json"
        report.write_text(OLD_REPORT)
        sig = signal.SIGINT if i % 2 else signal.SIGTERM
        env, marker = marked_env()
        proc = start_cli("run", "--output", report, "--profile", TORCHSCRIPT, env=env)
        time.sleep(delay)
        if proc.poll() is None:
            os.kill(proc.pid, sig)
        rc, out, err = finish(proc, timeout=300)
        text = report.read_text()
        if rc == 0:
            assert text != OLD_REPORT
            assert json.loads(text)["status"] == "passed"
            assert_valid_report(report)
        elif rc == 128 + sig:  # the run's handlers caught it: Interrupted, nothing written
            assert text == OLD_REPORT, out + err
        else:
            # -sig: the default action killed the CLI, either before it installed its handlers (nothing
            # started: the old report) or after it put them back, the report already renamed into place
            # (the whole new report). Either way one of the two reports, never a mix.
            assert rc == -sig, out + err
            if text != OLD_REPORT:
                assert json.loads(text)["status"] == "passed"
                assert_valid_report(report)
        assert_no_process_left(marker, grace=2.0)
        assert leftovers(folder) == []
        outcomes.append(rc)
    print("exit codes by delay:", outcomes)
    assert any(rc != 0 for rc in outcomes), outcomes


def test_force_clears_only_the_chosen_profile_folder(both_profiles, tmp_path):
    _, root = copy_report(both_profiles, tmp_path)
    (root / TORCHSCRIPT / "stale.bin").write_bytes(b"left by an earlier run")
    (root / "notes.txt").write_text("not a profile folder")
    (root / "other-profile").mkdir()
    (root / "other-profile" / "model.onnx").write_bytes(b"another profile's model")
    def kept(digest):  # everything but the chosen profile's folder and the lock file (its holder's pid)
        return {k: v for k, v in digest.items() if not k.startswith(TORCHSCRIPT)}

    kept_before = kept(tree_digest(root))

    refused = cli("run", "--output", tmp_path / "refused.json", "--artifacts", root, "--profile", TORCHSCRIPT,
                  env=dict(os.environ))
    assert refused.returncode == 2 and "--force" in refused.stderr and refused.stderr.count("\n") == 1
    assert (root / TORCHSCRIPT / "stale.bin").exists()

    done = cli("run", "--output", tmp_path / "new.json", "--artifacts", root, "--profile", TORCHSCRIPT, "--force",
               env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert kept(tree_digest(root)) == kept_before, "the dynamo folder and everything else in the root are untouched"
    assert not (root / TORCHSCRIPT / "stale.bin").exists()
    verified = cli("verify", tmp_path / "new.json", root, env=dict(os.environ))
    assert verified.returncode == 0, verified.stderr


def test_force_refuses_a_symlinked_artifacts_root(both_profiles, tmp_path):
    _, real_root = copy_report(both_profiles, tmp_path)
    before = tree_digest(real_root)
    link = tmp_path / "root-link"
    os.symlink(real_root, link)
    done = cli("run", "--output", tmp_path / "r.json", "--artifacts", link, "--force", env=dict(os.environ))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"nnx-conformance: usage error: refusing to clear profile folders in the "
                                        f"symlinked artifacts folder {link}"]
    assert tree_digest(real_root) == before, "nothing was cleared or created behind the link"
    assert not (tmp_path / "r.json").exists()


def test_force_refuses_a_symlinked_profile_folder(both_profiles, tmp_path):
    _, root = copy_report(both_profiles, tmp_path)
    target = tmp_path / "precious"
    shutil.move(root / TORCHSCRIPT, target)
    (target / "keep-me.txt").write_text("must survive --force")
    before = tree_digest(target)
    os.symlink(target, root / TORCHSCRIPT)
    done = cli("run", "--output", tmp_path / "r.json", "--artifacts", root, "--force", env=dict(os.environ))
    assert done.returncode == 2
    assert "refusing to clear the symlinked profile folder" in done.stderr and done.stderr.count("\n") == 1
    assert tree_digest(target) == before
    assert (root / TORCHSCRIPT).is_symlink()
    assert (root / DYNAMO / "model.onnx").exists(), "no profile folder was cleared before the refusal"


def test_a_second_run_on_the_same_root_refuses_and_nothing_is_mixed(tmp_path):
    root = tmp_path / "shared-root"
    pause = tmp_path / "paused"
    env_a, marker_a = marked_env({HOOK: pause})
    first = start_cli("run", "--output", tmp_path / "first.json", "--artifacts", root, "--profile", TORCHSCRIPT,
                      env=env_a)
    wait_for(lambda: pause.exists() or first.poll() is not None, 300, "the first run to reach its load stage")
    assert first.poll() is None
    folder_before = tree_digest(root / TORCHSCRIPT)

    # The same root under another spelling (a link to it), with and without --force: refused at once.
    link = tmp_path / "root-alias"
    os.symlink(root, link)
    for args in (["--artifacts", root, "--force"], ["--artifacts", link], ["--artifacts", root / ".." / root.name]):
        env_b, marker_b = marked_env()
        started = time.monotonic()
        second = cli("run", "--output", tmp_path / "second.json", "--profile", TORCHSCRIPT, *args, env=env_b)
        assert time.monotonic() - started < 10
        assert second.returncode == 2, second.stdout + second.stderr
        (line,) = second.stderr.splitlines()
        assert f"another nnx-conformance run holds" in line and f"pid {first.pid}" in line
        assert not (tmp_path / "second.json").exists()
        assert processes_with(marker_b) == []
    assert tree_digest(root / TORCHSCRIPT) == folder_before, "the second run touched nothing"

    pause.unlink()
    rc, out, err = finish(first)
    assert rc == 0, out + err
    assert_valid_report(tmp_path / "first.json")
    assert cli("verify", tmp_path / "first.json", root, env=dict(os.environ)).returncode == 0
    assert sorted(p.name for p in root.iterdir()) == [TORCHSCRIPT], "the lock leaves no file in the artifacts root"
    assert_no_process_left(marker_a)


def test_the_lock_dies_with_its_holder(tmp_path):
    """A run killed with SIGKILL (no handler runs) releases the root: the next run proceeds."""
    root = tmp_path / "root"
    pause = tmp_path / "paused"
    env, marker = marked_env({HOOK: pause})
    victim = start_cli("run", "--output", tmp_path / "victim.json", "--artifacts", root, "--profile", TORCHSCRIPT,
                       env=env)
    wait_for(lambda: pause.exists() or victim.poll() is not None, 300, "the run to reach its load stage")
    victim.kill()
    finish(victim)
    # The orphaned worker sees its stdin close and exits on its own.
    assert_no_process_left(marker, grace=15.0)
    done = cli("run", "--output", tmp_path / "next.json", "--artifacts", root, "--profile", TORCHSCRIPT, "--force",
               env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert only_record(tmp_path / "next.json")["status"] == "passed"
