"""A run and an execute reach for no network: no name lookup, no AF_INET/AF_INET6 socket, in any thread.

The outcome must not depend on how this machine resolves names, so every traced command runs in a sandbox
of the test's own: a new network namespace (only loopback, brought up) and a new mount namespace in which
/etc/nsswitch.conf, /etc/resolv.conf and /etc/hosts are replaced by bind mounts of private files whose
`hosts: files dns` sends every lookup to a DNS server on 127.0.0.1. A control command proves that a name
lookup made in that sandbox does reach DNS (a connect to 127.0.0.1:53 shows in the trace), so a clean
trace of ours means nothing was looked up, not that the lookup had nowhere to go.

ONNX Runtime's telemetry acts after a delay; the traced process is kept alive past it by strace itself
(`inject=...:delay_enter`): the atomic rename that publishes the report is held for HOLD_SECONDS while the
runtime is still loaded, so a delayed thread has all that time to act. Telemetry is also suppressed by
ONNX Runtime itself when the environment names a CI system (CI=true, as our CI sets it) or its own test
harness; those variables are removed from the traced command's environment, so only our code can keep
the runtime quiet. Run against a build that leaves the runtime's telemetry on, this test fails (the note of
issue 15 shows it).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CLI, require_runtime

HOLD_SECONDS = 25
# Variables under which ONNX Runtime suppresses its telemetry by itself (core/platform/telemetry_environment.h
# of its sources), and its own switches: none of them may do our work for us in this test.
RUNTIME_SUPPRESSING_VARIABLES = (
    "CI", "TF_BUILD", "GITHUB_ACTIONS", "GITLAB_CI", "CIRCLECI", "TRAVIS", "JENKINS_URL", "CODEBUILD_BUILD_ID",
    "BUILDKITE", "TEAMCITY_VERSION", "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI",
    "ORT_RUNNING_UNIT_TESTS", "ORT_DISABLE_TELEMETRY", "ORT_TELEMETRY_DISABLED",
)
RENAME_CALLS = "rename,renameat,renameat2"
TRACED_CALLS = "execve,socket,connect,sendto,sendmsg,sendmmsg,openat,open"


def require_sandbox_tools():
    for tool in ("strace", "unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is needed for the network sandbox (make bootstrap installs strace)")


def sandbox_files(tmp_path: Path) -> Path:
    etc = tmp_path / "resolver"
    etc.mkdir()
    (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files dns\n")
    (etc / "resolv.conf").write_text("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    (etc / "hosts").write_text("127.0.0.1 localhost\n")
    return etc


def traced_in_sandbox(tmp_path: Path, command, name: str, hold_rename: bool):
    """Runs `command` under strace -f in the private network and resolver sandbox; returns (done, trace)."""
    require_sandbox_tools()
    etc = sandbox_files(tmp_path)
    trace = tmp_path / f"{name}.trace"
    calls = TRACED_CALLS
    strace = ["strace", "-f", "-qq", "-s", "256", "-o", str(trace)]
    if hold_rename:  # strace injects only into calls it traces
        calls += "," + RENAME_CALLS
        strace += ["-e", f"inject={RENAME_CALLS}:delay_enter={HOLD_SECONDS}s"]
    strace += ["-e", f"trace={calls}"]
    setup = " && ".join([
        "ip link set lo up",
        f"mount --bind {etc / 'nsswitch.conf'} /etc/nsswitch.conf",
        f"mount --bind {etc / 'resolv.conf'} /etc/resolv.conf",
        f"mount --bind {etc / 'hosts'} /etc/hosts",
        # A name service cache daemon of the machine would answer lookups past our files: hidden.
        "{ [ ! -d /run/nscd ] || mount -t tmpfs none /run/nscd; }",
        'exec "$@"',
    ])
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_SUPPRESSING_VARIABLES}
    done = subprocess.run(["unshare", "--mount", "--net", "sh", "-c", setup, "sandbox", *strace, *map(str, command)],
                          capture_output=True, text=True, env=env, timeout=1200)
    return done, trace.read_text() if trace.exists() else ""


def network_reaches(trace: str):
    """Every traced line that opens or uses an internet socket, or reads the host resolver's files (a host
    name lookup in progress: `files` reads /etc/hosts, `dns` reads /etc/resolv.conf). User and group
    lookups (the exporters ask for the user's name) read /etc/passwd and are not network lookups."""
    found = []
    for line in trace.splitlines():
        if "AF_INET" in line or "AF_INET6" in line:
            found.append(line)
        elif "/etc/resolv.conf" in line or "/etc/hosts" in line:
            found.append(line)
    return found


def test_the_sandbox_sends_a_name_lookup_to_dns(tmp_path):
    """Control: in the sandbox, resolving a name does reach DNS on 127.0.0.1:53 (and reads the resolver)."""
    done, trace = traced_in_sandbox(tmp_path, ["getent", "ahosts", "conformance-test.example"], "control",
                                    hold_rename=False)
    assert done.returncode != 0  # nothing answers on 127.0.0.1:53
    assert any("connect(" in line and "127.0.0.1" in line and "htons(53)" in line for line in trace.splitlines()), trace
    assert network_reaches(trace)


def test_run_of_both_profiles_and_its_worker_look_up_no_name(tmp_path):
    require_runtime()
    done, trace = traced_in_sandbox(tmp_path, [CLI, "run", "--output", tmp_path / "out" / "r.json"], "run",
                                    hold_rename=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert network_reaches(trace) == []
    # The exporter worker (a Python child) ran under the same trace.
    assert any("execve(" in line and "python" in line and "nnx_worker.py" in line for line in trace.splitlines())


def test_execute_looks_up_no_name(tmp_path, both_profiles):
    """One record, so that one runtime environment lives through the whole hold (with several records the
    runtime's environment is made again for each, and the uploader of a remade one was seen to stay quiet:
    that would let this test pass by luck)."""
    require_runtime()
    done_run, report, artifacts = both_profiles
    assert done_run.returncode == 0, done_run.stderr
    record_path = tmp_path / "record.json"
    record_path.write_text(json.dumps(report["profiles"][0]))
    done, trace = traced_in_sandbox(tmp_path, [CLI, "execute", record_path, artifacts, "--output",
                                               tmp_path / "again.json"], "execute", hold_rename=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert network_reaches(trace) == []
