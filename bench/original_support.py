"""How bench/original_compare.py runs and measures the published original (thekaveh-nnx 0.4.1) and ours.

The original's interpreter (build/original-venv, from scripts/install_original.sh) and ours, the run flags a
section needs (SetupError when missing), peak RSS of a process tree sampled from /proc, the original's run
command, the timings' critical path and phase table, and the figures' formatting.
"""
import json
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPEAT = 5


class SetupError(RuntimeError):
    """What the benchmark needs is missing (a flag, the original's venv, the built package)."""


# --------------------------------------------------------------------------------------------- helpers

def original_python(build):
    py = os.path.join(build, "original-venv", "bin", "python")
    if not os.access(py, os.X_OK):
        raise SetupError(f"no {py}: run scripts/install_original.sh (the bootstrap does) first")
    return py


def ours_python():
    return os.path.join(ROOT, ".venv", "bin", "python")


def require_run_flags(cli, *flags):
    """Refuses to go on when `nnx-conformance run` lacks a flag (issue 14 part A adds them)."""
    helptext = subprocess.run([cli, "run", "--help"], capture_output=True, text=True)
    text = helptext.stdout + helptext.stderr
    missing = [f for f in flags if f not in text]
    if missing:
        raise SetupError(f"`nnx-conformance run` has no {', '.join(missing)} (issue 14 part A adds it): "
                         "build a tree that has it, or skip this section with --sections")


def tree_rss_kib(pid):
    """Sum of VmRSS over pid and all its descendants, from /proc (0 when it is gone)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def run_sampled(cmd, env=None, interval=0.05):
    """(wall seconds, peak process-tree RSS KiB, exit code, stderr) of one command."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    while p.poll() is None:
        peak = max(peak, tree_rss_kib(p.pid))
        time.sleep(interval)
    err = p.stderr.read()
    return time.perf_counter() - t, peak, p.returncode, err


def original_run_cmd(build, directory, profiles=None):
    """The original's run_profiles in its venv; profiles: None (its tested ones) or a list of Profile kwargs."""
    # Its run_profiles takes only tested names; custom Profiles go through its run_profile, in the same loop
    # run_profiles itself runs (one record per profile, in order).
    code = ("import json, sys\nimport nnx.export_conformance as ec\n"
            "specs = json.loads(sys.argv[2])\n"
            "if specs is None:\n"
            "    records = ec.run_profiles(sys.argv[1])['profiles']\n"
            "else:\n"
            "    records = [ec.run_profile(ec.Profile(**s), sys.argv[1]) for s in specs]\n"
            "sys.exit(0 if all(r['status'] == 'passed' for r in records) else 1)\n")
    return [original_python(build), "-c", code, directory, json.dumps(profiles)]


def fmt_s(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def target(text, ratio, ok_when, value):
    return {"target": text, "value": value, "ratio": ratio, "ok": ok_when}


# --------------------------------------------------------------------------------------------- timings

IMPORT_PHASES = ("import_torch", "import_onnxscript")  # timed by the worker itself, inside worker_start


def critical_path(timings):
    """The issue's limit: the exporters' and imports' own time on the slowest profile's path — the slowest
    worker's module imports (import_torch + import_onnxscript; worker_start contains them, so it is not added
    again) + the slowest profile's export. Everything else of the run (worker start-up besides the imports,
    check, load, parity, write) is our overhead, which the target bounds at 10%.
    Returns (critical seconds, {profile: export seconds}, imports seconds)."""
    imports_by_worker = {}
    per_profile = {}
    for ph in timings["phases"]:
        if ph["name"] in IMPORT_PHASES:
            key = ph.get("worker")
            imports_by_worker[key] = imports_by_worker.get(key, 0.0) + ph["seconds"]
        elif ph["name"] == "export" and ph.get("profile") is not None:
            per_profile[ph["profile"]] = per_profile.get(ph["profile"], 0.0) + ph["seconds"]
    imports = max(imports_by_worker.values(), default=0.0)
    slowest = max(per_profile.values(), default=0.0)
    return imports + slowest, per_profile, imports


def phase_table(timings):
    totals = {}
    for ph in timings["phases"]:
        totals[ph["name"]] = totals.get(ph["name"], 0.0) + ph["seconds"]
    return ["| Phase (summed over workers and profiles) | Seconds |", "|---|---|",
            *[f"| {name} | {fmt_s(s)} |" for name, s in totals.items()]]
