"""Side-by-side measurements against the published original (thekaveh-nnx 0.4.1), for scripts/run_benchmarks.py.

The original is a black box installed by scripts/install_original.sh into build/original-venv (from the wheel
cache, hash-locked); this module only imports it there, in child processes, and times it next to ours. Every
figure is the minimum of >= 5 runs, ours and the original's alternating so that machine load hits both alike.

Sections (each a function returning (results, markdown rows)):
  original_run      full run of both tested profiles: `nnx-conformance run --timings` vs the original's
                    run_profiles; our phase breakdown, critical path and run / critical path
  original_scaling  N = 1, 2, 4, 8, 16 custom torchscript profiles (--profile-file) vs run_profiles on the same N
  original_inproc   in-process validate_record / verify_artifacts per record and 10,000 records in one call
  original_rss      peak RSS of a full run, whole process tree (sampled from /proc), vs the original's

How the original and ours are started and measured (interpreters, run flags, process-tree RSS, critical
path, formatting) is bench/original_support.py.

`run --profile-file` and `run --timings` come from issue 14 part A: without them the run sections stop with a
clear error (SetupError) instead of measuring something else.
"""
import json
import os
import statistics
import subprocess

# Beside this module (bench/): running and measuring the original and ours; SetupError is re-exported for
# scripts/run_benchmarks.py.
from original_support import (REPEAT, SetupError, critical_path, fmt_s, original_python, original_run_cmd,
                              ours_python, phase_table, require_run_flags, run_sampled, target)

# --------------------------------------------------------------------------------------------- sections

# The explicit parallel run shown beside the default (auto), as a command-line argument.
PARALLEL = str(max(2, os.cpu_count() or 1))


def original_run(cli, build, work):
    require_run_flags(cli, "--timings")
    ours, theirs, parallel, best_timings = [], [], [], None
    for i in range(REPEAT):
        out = os.path.join(work, f"orig-run-ours-{i}")
        # `--jobs <cores>`: one worker per core at once, beside the default (auto: workers the exports pay for).
        sw, _, src, serr = run_sampled([cli, "run", "--output", os.path.join(out + "-parallel", "r.json"), "--force",
                                        "--jobs", PARALLEL])
        if src != 0:
            raise SetupError(f"nnx-conformance run --jobs {PARALLEL} failed (exit {src}): {serr.strip()[-400:]}")
        parallel.append(sw)
        tpath = os.path.join(work, f"orig-run-timings-{i}.json")
        w, _, rc, err = run_sampled([cli, "run", "--output", os.path.join(out, "r.json"), "--force",
                                     "--timings", tpath])
        if rc != 0:
            raise SetupError(f"nnx-conformance run failed (exit {rc}): {err.strip()[-400:]}")
        with open(tpath) as f:
            timings = json.load(f)
        if not ours or w < min(ours):
            best_timings = timings
        ours.append(w)
        ow, _, orc, oerr = run_sampled(original_run_cmd(build, os.path.join(work, f"orig-run-theirs-{i}")))
        if orc != 0:
            raise SetupError(f"the original's run_profiles failed (exit {orc}): {oerr.strip()[-400:]}")
        theirs.append(ow)
    crit, per_profile, imports = critical_path(best_timings)
    total = best_timings["total_s"]
    over = total / crit if crit else float("nan")
    speed = min(theirs) / min(ours)
    results = {
        "orig_run": target("full run of both tested profiles vs the original's run_profiles (ratio = original / ours)",
                           speed, speed >= 1.0, f"{speed:.2f}x ({fmt_s(min(ours))} vs {fmt_s(min(theirs))})"),
        "orig_critical": target("run within 10% of its critical path (the worker's imports + the slowest profile's export)",
                                over, over <= 1.10, f"{over:.2f} ({fmt_s(total)} vs {fmt_s(crit)})"),
    }
    workers = len({ph.get("worker") for ph in best_timings["phases"] if ph.get("worker") is not None})
    rows = ["| What | Min of 5 |", "|---|---|",
            f"| `nnx-conformance run` (both tested profiles; `--jobs` default = auto, "
            f"{workers} worker(s) used) | {fmt_s(min(ours))} |",
            f"| `nnx-conformance run --jobs {PARALLEL}` (one worker per core) | {fmt_s(min(parallel))} |",
            f"| original `run_profiles(dir)` | {fmt_s(min(theirs))} |",
            f"| critical path: imports {fmt_s(imports)} + slowest profile "
            f"export {fmt_s(max(per_profile.values(), default=0.0))} | {fmt_s(crit)} |", "",
            *phase_table(best_timings)]
    return results, rows


def scaling_profiles(n):
    return [{"name": f"scale-{i:02d}", "exporter": "torchscript"} for i in range(n)]


WORKER_PHASES = ("worker_start", "export", "check", "reference")  # a lane's worker part, in its order
RUNTIME_PHASES = ("load", "parity")  # the runtime's part, beside the worker's next profile


def first_worker_start(phases):
    """The run's first worker_start phase (its first profile's: the worker's start), or None."""
    return min((p for p in phases if p["name"] == "worker_start"), key=lambda p: p["start_s"], default=None)


def once_per_run(phases):
    """What a run pays once, from its own --timings: its first worker's start (torch's import and the
    runtime's opening inside it). Taken off each run's wall time for the per-extra-profile cost, so that the
    import's spread between runs (a tenth of a second here) is not spread over the extra profiles."""
    first = first_worker_start(phases)
    return first["seconds"] if first else 0.0


def warm_profile_phases(phases):
    """{phase: median seconds over the run's profiles after its first} (their worker is warm)."""
    first = first_worker_start(phases)["profile"]
    by_name = {}
    for p in phases:
        if p["profile"] is not None and p["profile"] != first:
            by_name.setdefault(p["name"], {}).setdefault(p["profile"], 0.0)
            by_name[p["name"]][p["profile"]] += p["seconds"]
    return {name: statistics.median(per.values()) for name, per in by_name.items()}


def original_scaling(cli, build, work, sizes=(1, 2, 4, 8, 16)):
    require_run_flags(cli, "--profile-file", "--timings")
    rows = [f"| Profiles | ours (min of 5; `--jobs` default = auto) | ours `--jobs {PARALLEL}` | original (min of 5) "
            "| original / ours | ours: exporters' own time | ours less its worker's start |",
            "|---|---|---|---|---|---|---|"]
    measured = {}
    for n in sizes:
        pfile = os.path.join(work, f"scale-{n}.json")
        with open(pfile, "w") as f:
            json.dump(scaling_profiles(n), f)
        ours, theirs, exporter_s, parallel, marginal, timings = [], [], [], [], [], []
        for i in range(REPEAT):
            sw, _, src, serr = run_sampled([cli, "run", "--output", os.path.join(work, f"scale-{n}-parallel", "r.json"),
                                            "--force", "--profile-file", pfile, "--jobs", PARALLEL])
            if src != 0:
                raise SetupError(f"run --jobs {PARALLEL} of {n} profiles failed (exit {src}): {serr.strip()[-400:]}")
            parallel.append(sw)
            tpath = os.path.join(work, f"scale-{n}-{i}.timings.json")
            w, _, rc, err = run_sampled([cli, "run", "--output", os.path.join(work, f"scale-{n}-ours", "r.json"),
                                         "--force", "--profile-file", pfile, "--timings", tpath])
            if rc != 0:
                raise SetupError(f"run of {n} profiles failed (exit {rc}): {err.strip()[-400:]}")
            with open(tpath) as f:
                phases = json.load(f)["phases"]
            exporter_s.append(sum(p["seconds"] for p in phases if p["name"] in ("export", "check")))
            marginal.append(w - once_per_run(phases))
            timings.append(phases)
            ours.append(w)
            ow, _, orc, oerr = run_sampled(original_run_cmd(build, os.path.join(work, f"scale-{n}-theirs-{i}"),
                                                            scaling_profiles(n)))
            if orc != 0:
                raise SetupError(f"the original's run_profiles of {n} profiles failed: {oerr.strip()[-400:]}")
            theirs.append(ow)
        measured[n] = (min(ours), min(theirs), min(exporter_s), min(marginal), timings[marginal.index(min(marginal))])
        rows.append(f"| {n} | {fmt_s(min(ours))} | {fmt_s(min(parallel))} | {fmt_s(min(theirs))} "
                    f"| {min(theirs) / min(ours):.2f}x | {fmt_s(min(exporter_s))} | {fmt_s(min(marginal))} |")
    results = {}
    if 16 in measured:
        r = measured[16][1] / measured[16][0]
        results["orig_scale16"] = target("16 profiles >= 3x faster than the original's run_profiles", r, r >= 3,
                                         f"{r:.2f}x")
    lo, hi = min(measured), max(measured)
    if hi > lo:
        # Each run's wall time less what it pays once (its worker's start), fastest of 5 at each size.
        per_extra = (measured[hi][3] - measured[lo][3]) / (hi - lo)
        exporters_extra = (measured[hi][2] - measured[lo][2]) / (hi - lo)
        r = per_extra / exporters_extra if exporters_extra > 0 else float("inf")
        results["orig_scale_extra"] = target("each extra profile costs <= 1.2x the exporters' own time for it", r,
                                             r <= 1.2, f"{r:.2f}x ({fmt_s(per_extra)} vs {fmt_s(exporters_extra)})")
        # The bound from the same runs' timings: a warm profile's phases, the worker's part and the runtime's.
        warm = warm_profile_phases(measured[hi][4])
        worker_part = sum(warm.get(name, 0.0) for name in WORKER_PHASES)
        parts = ", ".join(f"{name} {fmt_s(warm.get(name, 0.0))}" for name in WORKER_PHASES)
        runtime = ", ".join(f"{name} {fmt_s(warm.get(name, 0.0))}" for name in RUNTIME_PHASES)
        results["orig_scale_extra"]["bound"] = (
            f"Per extra profile: the fastest {lo}- and {hi}-profile runs, each less its worker's start (torch's "
            f"import), and their `--timings`. A warm profile's worker part (medians over the {hi}-profile run's "
            f"profiles after the first) is {parts}: {fmt_s(worker_part)} in a row on the one worker, which bounds "
            f"each extra profile from below; its runtime part ({runtime}) runs beside the next profile's export. "
            f"The exporters' own time (export + the checker) is {fmt_s(exporters_extra)} of {fmt_s(per_extra)}; "
            f"the rest of the worker's part (parity's PyTorch reference; a warm worker's dependencies answer is "
            f"the first profile's, reused) is work every profile needs.")
    return results, rows


INPROC = r"""
import json, sys, time
sys.path[:0] = [p for p in sys.argv[4:] if p]
import nnx.export_conformance as ec
record = json.load(open(sys.argv[1]))
root, count = sys.argv[2], int(sys.argv[3])
def best(fn, loops):
    out = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(loops):
            fn()
        out.append((time.perf_counter() - t) / loops)
    return min(out)
records = [json.loads(json.dumps(record)) for _ in range(count)]
batch = getattr(ec, "validate_records", None)
verify_batch = getattr(ec, "verify_artifacts_many", None)
def all_at_once():
    if batch is not None:
        assert not any(batch(records))
    else:
        for r in records:
            ec.validate_record(r)
some = records[:200]
def verify_all():
    if verify_batch is not None:
        assert not any(verify_batch(some, root))
    else:
        for r in some:
            ec.verify_artifacts(r, root)
def one_by_one():
    for r in records:
        ec.validate_record(r)
batch_time = best(all_at_once, 1)
print(json.dumps({
    "validate": best(lambda: ec.validate_record(record), 200),
    "loop": (best(one_by_one, 1) if batch is not None else batch_time) / len(records),  # no batch: that same loop
    "verify": best(lambda: ec.verify_artifacts(record, root), 50),
    "batch": batch_time,
    "batch_api": batch is not None,
    "verify_batch": best(verify_all, 1) / len(some),
    "verify_batch_api": verify_batch is not None,
}))
"""


def original_inproc(build, record_path, root, count=10000, rounds=3):
    """In-process: our package (BUILD/python) vs the original (its venv), same record, same folder. Each
    process takes the min of 5 per figure; `rounds` processes each, ours and the original's alternating so
    that machine load hits both alike, and the min over them."""
    ours_cmd = [ours_python(), "-c", INPROC, record_path, root, str(count), os.path.join(build, "python")]
    theirs_cmd = [original_python(build), "-c", INPROC, record_path, root, str(count), ""]
    figures = {}
    for _ in range(rounds):
        for who, cmd in (("ours", ours_cmd), ("original", theirs_cmd)):
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise SetupError(f"in-process timing ({who}) failed: {p.stderr.strip()[-400:]}")
            got = json.loads(p.stdout.strip().splitlines()[-1])
            best = figures.setdefault(who, got)
            for key, value in got.items():
                if isinstance(value, float):
                    best[key] = min(best[key], value)
    o, t = figures["ours"], figures["original"]
    rv, rver, rb = t["validate"] / o["validate"], t["verify"] / o["verify"], t["batch"] / o["batch"]
    results = {
        "orig_validate": target("in-process validate_record >= 20x faster than the original's", rv, rv >= 20,
                                f"{rv:.1f}x ({fmt_s(o['validate'])} vs {fmt_s(t['validate'])} per record)"),
        "orig_verify": target("in-process verify_artifacts >= 2x faster than the original's", rver, rver >= 2,
                              f"{rver:.1f}x ({fmt_s(o['verify'])} vs {fmt_s(t['verify'])} per record)"),
        "orig_batch": target(f"validating {count:,} records in one call >= 50x faster than the original's loop",
                             rb, rb >= 50, f"{rb:.1f}x ({fmt_s(o['batch'])} vs {fmt_s(t['batch'])}; ours "
                             f"{'validate_records' if o['batch_api'] else 'a loop: no validate_records yet'})"),
    }
    cores = os.cpu_count() or 1
    needed = t["batch"] / 50 / count
    results["orig_batch"]["bound"] = (
        f"Each of the {count:,} distinct records costs {fmt_s(o['loop'])} of CPU when validated alone "
        f"(validate_record over the same records one by one: its Python objects read into a tape under the GIL, "
        f"then the rules; callgrind counts about 59k and 64k instructions for the two on a tested record). "
        f"The batch reads each record under the GIL on the calling thread while {max(cores - 1, 1)} worker(s) "
        f"apply the rules, so on {cores} core(s) it cannot beat {fmt_s(o['loop'] / cores)} per record, nor the "
        f"reading alone, which only the GIL's holder can do: about {fmt_s(o['loop'] * 59 / 123)} by the "
        f"instruction counts (measured: {fmt_s(o['batch'] / count)}); 50x needs {fmt_s(needed)} per record.")

    rows = [f"| In-process (min of 5 in each of {rounds} processes, ours and the original's alternating) | ours | original |",
            "|---|---|---|",
            f"| validate_record, per record | {fmt_s(o['validate'])} | {fmt_s(t['validate'])} |",
            f"| verify_artifacts, per record | {fmt_s(o['verify'])} | {fmt_s(t['verify'])} |",
            f"| {count:,} records in one call (original: a loop) | {fmt_s(o['batch'])} | {fmt_s(t['batch'])} |",
            f"| {count:,} records one by one, per record (validate_record in a loop) | {fmt_s(o['loop'])} "
            f"| {fmt_s(t['loop'])} |",
            f"| verify 200 records in one call, per record (ours: "
            f"{'verify_artifacts_many' if o['verify_batch_api'] else 'a loop'}; original: a loop) "
            f"| {fmt_s(o['verify_batch'])} | {fmt_s(t['verify_batch'])} |"]
    return results, rows


def original_rss(cli, build, work):
    """Peak RSS of the whole process tree (worker included) of a full run of both tested profiles."""
    ours, theirs, parallel = [], [], []
    for i in range(REPEAT):
        _, speak, src, serr = run_sampled([cli, "run", "--output", os.path.join(work, f"rss-ours-parallel-{i}", "r.json"),
                                           "--force", "--jobs", PARALLEL])
        if src != 0:
            raise SetupError(f"nnx-conformance run --jobs {PARALLEL} failed (exit {src}): {serr.strip()[-400:]}")
        parallel.append(speak)
        _, peak, rc, err = run_sampled([cli, "run", "--output", os.path.join(work, f"rss-ours-{i}", "r.json"),
                                        "--force"])
        if rc != 0:
            raise SetupError(f"nnx-conformance run failed (exit {rc}): {err.strip()[-400:]}")
        ours.append(peak)
        _, opeak, orc, oerr = run_sampled(original_run_cmd(build, os.path.join(work, f"rss-theirs-{i}")))
        if orc != 0:
            raise SetupError(f"the original's run_profiles failed (exit {orc}): {oerr.strip()[-400:]}")
        theirs.append(opeak)
    r = min(ours) / min(theirs) if min(theirs) else float("nan")
    results = {"orig_rss": target("peak RSS of a full run (process tree) vs the original's (ours / original)",
                                  r, r <= 1.0, f"{r:.2f} ({min(ours) / 1024:.0f} MiB vs {min(theirs) / 1024:.0f} MiB)")}
    rows = ["| Full run, peak RSS of the process tree (min of 5, sampled every 50 ms) | MiB |", "|---|---|",
            f"| `nnx-conformance run` (`--jobs` default = auto: one worker here) "
            f"| {min(ours) / 1024:.0f} |",
            f"| `nnx-conformance run --jobs {PARALLEL}` (one worker per profile here) | {min(parallel) / 1024:.0f} |",
            f"| original `run_profiles(dir)` | {min(theirs) / 1024:.0f} |"]
    return results, rows


SECTIONS = {
    "original-run": "full run of both tested profiles vs the original, phase breakdown, critical path",
    "original-scaling": "1..16 custom torchscript profiles vs the original",
    "original-inproc": "in-process validate / verify / 10,000 records vs the original",
    "original-rss": "peak RSS of a full run (process tree) vs the original",
}


# What bounds each target when it misses: the breakdowns measured with perf, strace and `run --timings` when
# the work was done (issue 14's closing note has the commands). Printed under the targets for each MISS.
MISS_BOUNDS = {
    "orig_scale16": "Bounded by torch's import, which both sides pay once: our 16-profile run is the worker's "
                    "start (torch and the exporter, see the phase table below: `worker_start`) plus about 16 x 18 ms, "
                    "so even with free exports the ratio cannot pass the original's total over our import time "
                    "(about 2.3x here). A second worker would import torch again: `--jobs 2` is slower (column above).",
    "orig_validate": "One validate through the Python API reads the record's Python objects into a tape under the "
                     "GIL (about 59k instructions, callgrind) and applies every rule to the tape where it lies (about "
                     "64k; no JSON value is built): `core_bench BM_ValidateRecordInPlace` times the rules alone.",
    "orig_verify": "Each record is first read whole into a tape (a NaN anywhere is still refused: about 59k "
                   "instructions), then its profile folder is opened once, listed and every file read and hashed "
                   "(11 system calls for a tested record); every byte is still hashed.",
}


def miss_lines(results):
    """Why each missed target misses, from MISS_BOUNDS."""
    lines = []
    for key, r in results.items():
        bound = r.get("bound") or MISS_BOUNDS.get(key)
        if not r["ok"] and bound:
            lines.append(f"- **{r['target']}** ({r['value']}): {bound}")
    return ["What bounds each missed target:", "", *lines, ""] if lines else []


def target_lines(results):
    """The report's list of every target with its measured ratio and PASS/MISS."""
    lines = ["| Target vs the original | Measured | Verdict |", "|---|---|---|"]
    for r in results.values():
        lines.append(f"| {r['target']} | {r['value']} | {'PASS' if r['ok'] else 'MISS'} |")
    return lines
