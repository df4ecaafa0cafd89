"""The Python API in a loop, side by side with the published original (thekaveh-nnx 0.4.1, build/original-venv):
the `python-loops` section of scripts/run_benchmarks.py (issue 26; src/app/worker_pool.h keeps the worker warm).

In one interpreter per side (ours: .venv with BUILD/python first on sys.path; the original: its venv), after
one warm-up call on each side, the minimum of REPEAT rounds of:
  run       16 `run_profile(Profile("loop-<k>", "torchscript"), root)` calls in a loop;
  execute   `execute(record, root)` (default reference: torch for a tested record) of both tested records;
  first     the first call of a fresh interpreter (run_profile of one custom profile): what a cold start costs,
            ours with the warm pool against ours with it off (idle timeout 0: every call starts its own worker,
            as before the pool) and the original's.
The two sides alternate round by round, so machine load hits both alike. Goals: the run loop at least as fast as
the original's (ours within 1.2x); execute >= 1.5x faster; the first call no dearer than without the pool.
"""
import json
import os
import shutil
import subprocess
import sys

from original_support import REPEAT, SetupError, fmt_s, original_python, ours_python, target

TITLE = "The Python API in a loop (16 run_profile calls, execute of both tested records) vs the original"
LOOP = 16

SCENARIO = r"""
import json, sys, time
sys.path[:0] = [p for p in sys.argv[3:] if p]
t0 = time.perf_counter()
import nnx.export_conformance as ec
what, root = sys.argv[1], sys.argv[2]
if what == "first" or what == "first-cold":
    if what == "first-cold":
        ec.set_worker_idle_timeout(0)
    ec.run_profile(ec.Profile("first", "torchscript"), root + "/first")
    print(json.dumps({"first": time.perf_counter() - t0}))
    raise SystemExit(0)
records = ec.run_profiles(root + "/tested")["profiles"]
ec.run_profile(ec.Profile("warm-up", "torchscript"), root + "/warm-up")
ec.execute(records[0], root + "/tested")
def rounds(fn):
    best = float("inf")
    for r in range(%d):
        t = time.perf_counter()
        fn(r)
        best = min(best, time.perf_counter() - t)
    return best
def run_loop(r):
    for k in range(%d):
        ec.run_profile(ec.Profile(f"loop-{r}-{k}", "torchscript"), root + "/loop")
def execute_both(r):
    for record in records:
        assert ec.execute(record, root + "/tested")["status"] == "passed"
print(json.dumps({"run": rounds(run_loop), "execute": rounds(execute_both)}))
""" % (REPEAT, LOOP)


def _one(python, what, root, package_path):
    done = subprocess.run([python, "-c", SCENARIO, what, root, package_path], capture_output=True, text=True)
    if done.returncode != 0:
        raise SetupError(f"python loop ({what}, {python}) failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(build, work):
    """{side: {figure: seconds}}: each figure the minimum over the sides' alternating processes."""
    sides = {"ours": (ours_python(), os.path.join(build, "python")), "original": (original_python(build), "")}
    best = {}
    for index in range(REPEAT):
        for side, (python, path) in sides.items():
            firsts = ["first", "first-cold"] if side == "ours" else ["first"]
            for what in firsts:
                got = _one(python, what, os.path.join(work, f"{side}-{what}-{index}"), path)
                key = "first_cold" if what == "first-cold" else "first"
                side_best = best.setdefault(side, {})
                side_best[key] = min(side_best.get(key, float("inf")), got["first"])
    for side, (python, path) in sides.items():  # the loops take their own minimum of REPEAT inside one process
        got = _one(python, "loops", os.path.join(work, f"{side}-loops"), path)
        best[side].update(got)
    return best


def python_loops_section(build, work):
    """(results, rows) for scripts/run_benchmarks.py."""
    shutil.rmtree(work, ignore_errors=True)  # every profile folder is new: nothing of an earlier run is in the way
    os.makedirs(work)
    b = measure(build, work)
    o, t = b["ours"], b["original"]
    run_ratio, exec_ratio = t["run"] / o["run"], t["execute"] / o["execute"]
    results = {
        "py_run_loop": target(f"{LOOP} run_profile calls in a loop at least as fast as the original's (within 1.2x)",
                              run_ratio, run_ratio >= 1 / 1.2,
                              f"{run_ratio:.2f}x ({fmt_s(o['run'])} vs {fmt_s(t['run'])})"),
        "py_execute_loop": target("execute of both tested records >= 1.5x faster than the original's", exec_ratio,
                                  exec_ratio >= 1.5, f"{exec_ratio:.2f}x ({fmt_s(o['execute'])} vs "
                                  f"{fmt_s(t['execute'])} per pair)"),
        "py_first_call": target("the first call costs no more than without the warm pool", o["first_cold"] / o["first"],
                                o["first"] <= o["first_cold"] * 1.05,
                                f"{fmt_s(o['first'])} with the pool, {fmt_s(o['first_cold'])} without"),
    }
    rows = [f"| Python, one interpreter per side (min of {REPEAT}; after one warm-up call each) | ours | original "
            "| original / ours |",
            "|---|---|---|---|",
            f"| {LOOP} `run_profile(Profile(..., \"torchscript\"), root)` calls in a loop | {fmt_s(o['run'])} "
            f"| {fmt_s(t['run'])} | {run_ratio:.2f}x |",
            f"| per call | {fmt_s(o['run'] / LOOP)} | {fmt_s(t['run'] / LOOP)} | |",
            f"| `execute(record, root)` of both tested records (torch reference) | {fmt_s(o['execute'])} "
            f"| {fmt_s(t['execute'])} | {exec_ratio:.2f}x |",
            f"| first call of a fresh interpreter (import + run_profile) | {fmt_s(o['first'])} | {fmt_s(t['first'])} "
            f"| {t['first'] / o['first']:.2f}x |",
            f"| first call, ours with the pool off (idle timeout 0) | {fmt_s(o['first_cold'])} | | |"]
    return results, rows


if __name__ == "__main__":
    build_dir = sys.argv[1] if len(sys.argv) > 1 else "build"
    res, table = python_loops_section(build_dir, os.path.join(build_dir, "bench-python-loops"))
    print("\n".join(table))
    for item in res.values():
        print(item)
