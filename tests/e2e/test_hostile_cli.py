"""Issue point 6 — every bad command-line input exits 2 (usage) or 1 (error) with one clear line on stderr:
never a stack trace, never an abort, never a signal, nothing on stdout, and nothing run or written.

Each case is a real process of the real CLI. A folder the CLI may not write is made for real: as root
(who may write anywhere) the CLI is started as the user nobody.
"""
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import CLI
from hostile_support import TORCHSCRIPT, cli, marked_env
from support import write_json


def good_report(both_profiles, tmp_path):
    done, report, artifacts = both_profiles
    assert done.returncode == 0
    path = tmp_path / "report.json"
    write_json(path, report)
    return path, artifacts


def assert_one_clear_line(done, code, needle):
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    (line,) = lines
    assert line.startswith("nnx-conformance: "), line
    assert needle in line, line
    for crash in ("Traceback", "terminate called", "Aborted", "what():", "core dumped", "Segmentation"):
        assert crash not in done.stderr
    assert done.stdout == ""


# (arguments, environment additions, expected exit, text the line must hold); {t} is the test's folder.
CASES = {
    "no-arguments": ([], {}, 2, "A subcommand is required"),
    "unknown-command": (["frobnicate"], {}, 2, "unknown command or argument: frobnicate"),
    "unknown-global-flag": (["--bogus"], {}, 2, "unknown command or argument: --bogus"),
    "unknown-run-flag": (["run", "--output", "{t}/r.json", "--bogus"], {}, 2, "not expected: --bogus"),
    "unknown-flag-without-output": (["run", "--bogus"], {}, 2, "unknown command or argument: --bogus"),
    "missing-output": (["run"], {}, 2, "--output is required"),
    "output-without-value": (["run", "--output"], {}, 2, "--output"),
    "unknown-profile": (["run", "--output", "{t}/r.json", "--profile", "resnet50"], {}, 2,
                        'unknown profile "resnet50" (tested profiles: feedfwd-fp32-torchscript, feedfwd-fp32-dynamo)'),
    "profile-without-value": (["run", "--output", "{t}/r.json", "--profile"], {}, 2, "--profile"),
    "report-path-is-a-folder": (["run", "--output", "{t}/folder"], {}, 2, "is a folder; give the path of the report"),
    "report-path-names-no-file": (["run", "--output", "{t}/folder/"], {}, 2, "--output must name a file"),
    "report-folder-is-a-file": (["run", "--output", "{t}/file.txt/r.json"], {}, 1,
                                "cannot create the report's folder"),
    "artifacts-is-a-file": (["run", "--output", "{t}/r.json", "--artifacts", "{t}/file.txt"], {}, 2,
                            "exists and is not a folder"),
    "bad-worker-timeout": (["run", "--output", "{t}/r.json"], {"NNX_WORKER_TIMEOUT_SECONDS": "soon"}, 2,
                           "NNX_WORKER_TIMEOUT_SECONDS=soon is not a positive number"),
    "negative-worker-timeout": (["run", "--output", "{t}/r.json"], {"NNX_WORKER_TIMEOUT_SECONDS": "-5"}, 2,
                                "NNX_WORKER_TIMEOUT_SECONDS=-5"),
    "bad-output-bound": (["run", "--output", "{t}/r.json"], {"NNX_WORKER_MAX_OUTPUT_BYTES": "lots"}, 2,
                         "NNX_WORKER_MAX_OUTPUT_BYTES=lots"),
    "validate-missing-file": (["validate", "{t}/absent.json"], {}, 1, "No such file or directory"),
    "validate-a-folder": (["validate", "{t}/folder"], {}, 1, "it is a directory"),
    "validate-not-json": (["validate", "{t}/file.txt"], {}, 1, "file.txt"),
    "validate-unknown-flag": (["validate", "a", "--bogus"], {}, 2, "--bogus"),
    "verify-missing-root": (["verify", "{report}", "{t}/absent-root"], {}, 2,
                            "the artifacts root {t}/absent-root does not exist"),
    "verify-missing-arguments": (["verify"], {}, 2, "FILE is required"),
    "execute-output-is-a-folder": (["execute", "{report}", "{root}", "--output", "{t}/folder"], {}, 2,
                                   "is a folder; give the path of the report"),
    "execute-missing-file": (["execute", "{t}/absent.json", "{root}"], {}, 1, "No such file or directory"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_clear_line(both_profiles, tmp_path, name):
    args, extra, code, needle = CASES[name]
    report, root = good_report(both_profiles, tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text("not JSON at all\n")
    fill = {"t": tmp_path, "report": report, "root": root}
    env, _ = marked_env(extra)
    done = cli(*[a.format(**fill) for a in args], env=env, timeout=120)
    assert_one_clear_line(done, code, needle.format(**fill))
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r-artifacts").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "folder", "report.json"]


def run_as_nobody():
    if os.geteuid() != 0:
        return None
    def drop():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    return drop


@pytest.mark.parametrize("mode", [0o555, 0o000], ids=["read-only-folder", "unreadable-folder"])
def test_an_output_folder_that_cannot_be_written_is_one_clear_line(mode):
    # Outside pytest's private tmp folder (mode 0700), so that the user nobody can reach it.
    base = Path(tempfile.mkdtemp(prefix="nnx-hostile-cli-"))
    try:
        base.chmod(0o755)
        locked = base / "locked"
        locked.mkdir()
        locked.chmod(mode)
        env, _ = marked_env()
        done = subprocess.run([str(CLI), "run", "--output", str(locked / "r.json"), "--profile", TORCHSCRIPT],
                              capture_output=True, text=True, env=env, timeout=120, preexec_fn=run_as_nobody())
        assert_one_clear_line(done, 1, f"cannot write the report in {locked}: Permission denied")
        locked.chmod(0o755)
        assert list(locked.iterdir()) == []
    finally:
        for p in base.rglob("*"):
            p.chmod(stat.S_IRWXU)
        shutil.rmtree(base)
