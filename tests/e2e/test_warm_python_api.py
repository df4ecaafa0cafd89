"""The Python API at the speed of the command line (issue 26): one exporter worker outlives a call and
serves the next (src/app/worker_pool.h), and leaves no process behind. Each scenario runs in a fresh
interpreter (the real package from the build, the real worker, torch and ONNX Runtime), which prints what it
saw as JSON; the process table is read from /proc."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import BUILD, BUNDLED_ORT, FAULTY_WORKER, require_runtime

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}

PRELUDE = f"""
import json, os, sys, time
sys.path.insert(0, {str(BUILD / "python")!r})
import nnx.export_conformance as ec

def workers():
    '''pids of this process's exporter workers (its children running nnx_worker.py or the faulty one)'''
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{{entry}}/stat").read()
            cmdline = open(f"/proc/{{entry}}/cmdline", "rb").read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"worker.py" in cmdline:
            found.append(int(entry))
    return sorted(found)

def profile(name):
    return ec.Profile(name, "torchscript", **{json.dumps(SMALL)})
"""


def run_script(body: str, tmp_path: Path, env=None, timeout=600):
    """Runs PRELUDE + body in a fresh interpreter; returns (completed process, its last stdout line as JSON)."""
    require_runtime()
    script = tmp_path / "scenario.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=full_env,
                          timeout=timeout, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads(done.stdout.strip().splitlines()[-1])


def alive(pid: int) -> bool:
    """Whether `pid` exists, zombies included (a zombie is a process left behind too)."""
    return Path(f"/proc/{pid}").exists()


def test_one_worker_serves_every_call_of_a_process_and_stops_at_exit(tmp_path):
    done, seen = run_script("""
        pids = []
        for i in range(3):
            record = ec.run_profile(profile(f"p{i}"), "out")
            assert record["status"] == "passed", record
            pids.append(workers())
        again = ec.execute(record, "out")
        pids.append(workers())
        print(json.dumps({"pids": pids, "status": again["status"]}))
    """, tmp_path)
    pids = seen["pids"]
    assert len(pids[0]) == 1 and all(p == pids[0] for p in pids), pids  # one worker, kept across four calls
    assert seen["status"] == "passed"
    time.sleep(0.5)
    assert not alive(pids[0][0]), "the worker outlived its interpreter"


def test_the_same_profile_run_cold_and_warm_gives_identical_records_and_artifacts(tmp_path):
    scenario = """
        if {warm}:
            ec.run_profile(profile("warm-up"), "warm-up")  # the next call is served by this call's worker
        record = ec.run_profile(profile("same"), "out", source_revision="r1")
        print(json.dumps({{"record": record, "workers": workers()}}))
    """
    runs = {}
    for warm in [False, True]:
        folder = tmp_path / ("warm" if warm else "cold")
        folder.mkdir()
        _, seen = run_script(scenario.format(warm=warm), folder)
        files = {p.relative_to(folder / "out"): p.read_bytes() for p in (folder / "out").rglob("*") if p.is_file()}
        runs[warm] = (seen["record"], files)
    assert runs[True][0] == runs[False][0]
    assert runs[False][1] and runs[True][1] == runs[False][1]


def test_a_crash_or_hang_in_one_call_is_its_export_error_and_the_next_call_gets_a_fresh_worker(tmp_path):
    env = {"NNX_WORKER_SCRIPT": str(FAULTY_WORKER), "NNX_TEST_FAULT_PROFILE": "victim",
           "NNX_WORKER_TIMEOUT_SECONDS": "20"}
    for fault in ["crash", "hang"]:
        folder = tmp_path / fault
        folder.mkdir()
        _, seen = run_script("""
            statuses, pids = [], []
            for name in ["before", "victim", "after"]:
                record = ec.run_profile(profile(name), "out")
                statuses.append(record["failure"] or record["status"])
                pids.append(workers())
            print(json.dumps({"statuses": statuses, "pids": pids}))
        """, folder, env={**env, "NNX_TEST_FAULT": fault})
        assert seen["statuses"] == ["passed", "export-error", "passed"], (fault, seen)
        before, victim, after = seen["pids"]
        assert len(before) == 1 and victim == [] and len(after) == 1 and after != before, (fault, seen)


def test_a_worker_killed_while_idle_is_replaced_by_the_next_call(tmp_path):
    _, seen = run_script("""
        import signal
        ec.run_profile(profile("first"), "out")
        first = workers()
        os.kill(first[0], signal.SIGKILL)
        time.sleep(0.2)
        record = ec.run_profile(profile("second"), "out")
        print(json.dumps({"first": first, "second": workers(), "status": record["status"]}))
    """, tmp_path)
    assert seen["status"] == "passed" and seen["second"] and seen["second"] != seen["first"], seen
    assert not alive(seen["first"][0]), "the killed worker was left as a zombie"


def test_close_workers_the_context_manager_and_the_idle_timeout_stop_the_worker(tmp_path):
    _, seen = run_script("""
        ec.run_profile(profile("a"), "out")
        warm = workers()
        ec.close_workers()
        closed = workers()
        with ec.workers():
            ec.run_profile(profile("b"), "out")
            inside = workers()
        after_block = workers()
        ec.set_worker_idle_timeout(0.5)
        ec.run_profile(profile("c"), "out")
        before_timeout = workers()
        time.sleep(3)
        print(json.dumps({"warm": warm, "closed": closed, "inside": inside, "after_block": after_block,
                          "before_timeout": before_timeout, "after_timeout": workers()}))
    """, tmp_path)
    assert len(seen["warm"]) == 1 and seen["closed"] == [], seen
    assert len(seen["inside"]) == 1 and seen["after_block"] == [], seen
    assert len(seen["before_timeout"]) == 1 and seen["after_timeout"] == [], seen
    for pid in seen["warm"] + seen["inside"] + seen["before_timeout"]:
        assert not alive(pid), f"worker {pid} left as a zombie"


def test_a_fork_neither_inherits_nor_kills_the_parents_worker(tmp_path):
    _, seen = run_script("""
        ec.run_profile(profile("parent-1"), "out")
        parent_worker = workers()
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read)
            record = ec.run_profile(profile("child"), "child-out")
            answer = {"status": record["status"], "workers": workers()}
            os.write(write, json.dumps(answer).encode())
            os._exit(0)
        os.close(write)
        child_answer = json.loads(os.read(read, 65536).decode())
        os.waitpid(child, 0)
        record = ec.run_profile(profile("parent-2"), "out")
        print(json.dumps({"parent": parent_worker, "child": child_answer, "after": workers(),
                          "status": record["status"]}))
    """, tmp_path)
    assert seen["child"]["status"] == "passed" and seen["status"] == "passed", seen
    assert seen["child"]["workers"] and seen["child"]["workers"] != seen["parent"], seen  # its own worker
    assert seen["after"] == seen["parent"], seen  # the parent's worker lived through the fork and its exit


def test_four_threads_at_once_each_get_a_passing_record(tmp_path):
    _, seen = run_script("""
        import threading
        results = {}
        def call(i):
            results[i] = ec.run_profile(profile(f"t{i}"), "out")["status"]
        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(json.dumps({"results": results, "workers": workers()}))
    """, tmp_path)
    assert sorted(seen["results"].values()) == ["passed"] * 4, seen
    assert 1 <= len(seen["workers"]) <= 2, seen  # kept for the next call, within the pool's bound


def test_a_worker_started_by_a_thread_that_ended_outlives_it_and_serves_the_next_call(tmp_path):
    """The lifeline follows the process, not the thread (PR_SET_PDEATHSIG would kill the worker when the
    thread that spawned it ends)."""
    _, seen = run_script("""
        import threading
        thread = threading.Thread(target=lambda: ec.run_profile(profile("in-thread"), "out"))
        thread.start()
        thread.join()
        time.sleep(1.0)
        before = workers()
        record = ec.run_profile(profile("after-thread"), "out")
        print(json.dumps({"before": before, "after": workers(), "status": record["status"]}))
    """, tmp_path)
    assert len(seen["before"]) == 1, seen
    assert seen["after"] == seen["before"] and seen["status"] == "passed", seen


def test_a_changed_worker_environment_gets_a_worker_that_matches(tmp_path):
    _, seen = run_script(f"""
        ec.run_profile(profile("plain"), "out")
        plain = workers()
        os.environ["NNX_WORKER_MAX_OUTPUT_BYTES"] = "12345678"
        ec.run_profile(profile("limits"), "out")
        limits = workers()
        os.environ["NNX_WORKER_SCRIPT"] = {str(FAULTY_WORKER)!r}
        ec.run_profile(profile("script"), "out")
        script = workers()
        os.environ["NNX_ONNXRUNTIME_LIBRARY"] = {str(BUNDLED_ORT)!r}
        ec.run_profile(profile("library"), "out")
        library = workers()
        print(json.dumps({{"plain": plain, "limits": limits, "script": script, "library": library}}))
    """, tmp_path)
    seen_pids = [set(seen[k]) for k in ["plain", "limits", "script", "library"]]
    for before, after in zip(seen_pids, seen_pids[1:]):
        assert after - before, seen  # each change started a worker the earlier ones could not be
    assert all(len(p) <= 2 for p in seen_pids), seen


def test_a_process_killed_with_sigkill_leaves_no_worker(tmp_path):
    require_runtime()
    script = tmp_path / "killed.py"
    script.write_text(PRELUDE + textwrap.dedent("""
        ec.run_profile(profile("p"), "out")
        print(json.dumps(workers()), flush=True)
        time.sleep(600)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        pids = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(pids) == 1
    deadline = time.monotonic() + 10
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids[0]), "the worker outlived a process killed by SIGKILL"
