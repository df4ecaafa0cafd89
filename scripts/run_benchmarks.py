#!/usr/bin/env python3
"""Times nnx-conformance against what a user would write instead, in one run, and writes BENCHMARKS.md.

    make test                              # (or make build) — builds build/ with the bench programs
    .venv/bin/python scripts/run_benchmarks.py [--quick] [--output BENCHMARKS.md]

Everything is measured on this machine in this one run: whole commands (wall time of the process, imports
and start-up included; peak RSS from /usr/bin/time), the Google Benchmark programs of bench/ and the Python
baselines of bench/ (baseline_check.py, baseline_validate.py). The baselines need the onnxruntime Python
package, which the product does not use: it is installed (once, idempotently) into a separate venv
build/bench-venv that sees .venv's torch/onnx/numpy through a .pth file; .venv itself is never changed.
Work files go to build/bench-work (about 1.3 GiB while it runs, the 1 GiB verify folder removed at the end).

--quick skips the largest profiles (64 hidden layers, 2^24 weights) and the top of the scaling table.
--sections A,B runs a subset: `existing` (everything above) and the side-by-side sections against the
published original thekaveh-nnx 0.4.1 (bench/original_compare.py; its venv build/original-venv comes from
scripts/install_original.sh): original-run (full run of both tested profiles, the phase breakdown from
`run --timings`, critical path), original-scaling (1..16 custom torchscript profiles via `run --profile-file`),
original-inproc (validate_record / verify_artifacts per record, 10,000 records in one call), original-rss
(peak RSS of the whole process tree), matrix (bench/matrix_bench.py: a 5-release runtime matrix, --jobs 1 vs
--jobs 2). A subset writes BUILD/bench-work-subset.md unless --output is given.
Exit 0 when every target holds, 1 when one does not (the table says which and by how much), 2 on a setup
problem.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import original_compare  # noqa: E402  (bench/: the side-by-side sections against the published original)
import matrix_bench  # noqa: E402  (bench/: the runtime matrix, --jobs 1 vs --jobs 2)
ORT_VERSION = "1.30.0"  # the bootstrap's libonnxruntime (README); the Python baseline uses the same release
TORCHSCRIPT = "feedfwd-fp32-torchscript"
DYNAMO = "feedfwd-fp32-dynamo"
GIB = 1 << 30
HAVE_TIME = os.access("/usr/bin/time", os.X_OK)  # peak RSS needs it; without it memory targets fail as unmeasured


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------------------------------ measuring

def spawn_wall(cmd, env=None, cwd=None):
    """Wall seconds of one whole process (fork/exec to exit); output discarded."""
    with open(os.devnull, "wb") as null:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=null, stderr=null, env=env, cwd=cwd)
        rc = p.wait()
        return time.perf_counter() - t, rc


def timed(cmd, env=None, cwd=None):
    """One run under /usr/bin/time: (wall seconds, peak RSS KiB, exit code, stdout, stderr)."""
    if not HAVE_TIME:  # fallback: wait4's maxrss (counts the pre-exec launcher too)
        t = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = p.communicate()
        wall = time.perf_counter() - t
        return wall, 0, p.returncode, out, err
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = ["/usr/bin/time", "-f", "%M", "-o", tf.name, *cmd]
        t = time.perf_counter()
        p = subprocess.run(full, env=env, cwd=cwd, capture_output=True, text=True)
        wall = time.perf_counter() - t
        lines = [l for l in open(tf.name).read().splitlines() if l.strip().isdigit()]
        rss = int(lines[-1]) if lines else 0
    return wall, rss, p.returncode, p.stdout, p.stderr


def interleaved(cmds, repeat, env=None, warmup=1):
    """Runs each command `repeat` times, alternating, after `warmup` runs each; medians in seconds."""
    for _ in range(warmup):
        for c in cmds:
            spawn_wall(c, env)
    samples = [[] for _ in cmds]
    codes = [set() for _ in cmds]
    for _ in range(repeat):
        for i, c in enumerate(cmds):
            s, rc = spawn_wall(c, env)
            samples[i].append(s)
            codes[i].add(rc)
    return [statistics.median(s) for s in samples], samples, codes


def fmt_s(s):
    if s < 0.001:
        return f"{s * 1e6:.1f} µs"
    if s < 0.01:
        return f"{s * 1000:.2f} ms"
    if s < 10:
        return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"
    return f"{s:.1f} s"


def fmt_mib(kib):
    return f"{kib / 1024:.0f} MiB"


# ------------------------------------------------------------------------------------------------ setup

def bench_python(build):
    """The separate venv for the baselines: .venv's packages (.pth) + onnxruntime; idempotent."""
    venv = os.path.join(build, "bench-venv")
    py = os.path.join(venv, "bin", "python")
    project_py = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.path.exists(project_py):
        sys.exit("no .venv: run `make test` (or scripts/bootstrap.sh) first")
    check = [py, "-c", f"import onnxruntime, torch, onnx, numpy; assert onnxruntime.__version__ == {ORT_VERSION!r}"]
    if os.path.exists(py) and subprocess.run(check, capture_output=True).returncode == 0:
        return py
    log(f"setting up {venv} (onnxruntime=={ORT_VERSION} for the Python baseline; .venv is not changed)")
    if not os.path.exists(py):
        subprocess.run([project_py, "-m", "venv", venv], check=True)
    site = subprocess.run([project_py, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    own_site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                              capture_output=True, text=True).stdout.strip()
    with open(os.path.join(own_site, "nnx_project_venv.pth"), "w") as f:
        f.write(site + "\n")
    # Wheels come from the bootstrap's cache outside the checkout; only a missing one is downloaded.
    wheels = os.path.join(os.environ.get("NNX_CACHE", os.path.expanduser("~/.cache/nnx-conformance")), "wheels")
    os.makedirs(wheels, exist_ok=True)
    offline = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links",
               wheels, f"onnxruntime=={ORT_VERSION}"]
    if subprocess.run(offline, capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "download", "-q", "--disable-pip-version-check", "-d", wheels,
                        f"onnxruntime=={ORT_VERSION}"], check=True)
        subprocess.run(offline, check=True)
    if subprocess.run(check).returncode != 0:
        sys.exit("the baseline venv cannot import onnxruntime, torch, onnx and numpy")
    return py


def machine_text():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1))
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, AttributeError):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs{mem}, {platform.system()} {platform.release()}"


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


# ------------------------------------------------------------------------------------------ profiles

def weights_of(model):
    w = [model["input_dim"], *model["hidden_dims"], model["output_dim"]]
    return sum(a * b + b for a, b in zip(w, w[1:]))


def profile(name, input_dim, hidden, output_dim, batches, std=0.5):
    return {"name": name, "batches": batches,
            "model": {"input_dim": input_dim, "hidden_dims": hidden, "output_dim": output_dim,
                      "weights": {"seed": 0, "std": std}}}


def run_custom(tools, prof, root, env):
    """`nnx-conformance run --profile-file` of one custom profile into the artifacts root ROOT, its report and
    timings beside ROOT: returns (record path, wall, rss, rc, timing dict of parse_timing)."""
    os.makedirs(root, exist_ok=True)
    beside = f"{root}-{prof['name']}"
    with open(beside + ".profiles.json", "w") as f:
        json.dump([{"exporter": "torchscript", **prof}], f)
    cmd = [tools["cli"], "run", "--quiet", "--force", "--jobs", "1", "--profile-file", beside + ".profiles.json",
           "--output", beside + ".report.json", "--artifacts", root, "--timings", beside + ".timings.json"]
    wall, rss, rc, out, err = timed(cmd, env=env)
    if rc not in (0, 16) or not os.path.exists(beside + ".report.json"):
        raise RuntimeError(f"{' '.join(cmd)} exited {rc}: {err[-2000:]}")
    with open(beside + ".report.json") as f:
        record_json = json.load(f)["profiles"][0]
    record = os.path.join(root, prof["name"] + ".record.json")
    with open(record, "w") as f:
        json.dump(record_json, f, indent=2, sort_keys=True)
    return record, wall, rss, rc, parse_timing(beside + ".timings.json")


# The phases of `run --timings` (README "Progress and timings") that make up each column of the tables:
# the exporter worker's (its start with the imports, the export, the checker), the load stage, and opening
# ONNX Runtime (inside worker_start, beside the worker's start).
WORKER_PHASES = ("worker_start", "export", "check")


def parse_timing(path):
    """The sums over a run's `--timings` phases: total_s (the run), worker_s, load_s, runtime_open_s."""
    with open(path) as f:
        timings = json.load(f)
    total = {"total_s": timings["total_s"], "worker_s": 0.0, "load_s": 0.0, "runtime_open_s": 0.0}
    for phase in timings["phases"]:
        if phase["name"] in WORKER_PHASES:
            total["worker_s"] += phase["seconds"]
        elif phase["name"] == "load":
            total["load_s"] += phase["seconds"]
        elif phase["name"] == "runtime_open":
            total["runtime_open_s"] += phase["seconds"]
    return total


def google_benchmark(binary, args, out_json):
    cmd = [binary, *args, f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    with open(out_json) as f:
        return json.load(f)


def bench_rows(data):
    rows = {}
    for b in data["benchmarks"]:
        rows[b["name"]] = b
        base = b["name"].split("/")[0]
        if base != b["name"] and "/iterations:" in b["name"]:
            rows.setdefault(base, b)
    return rows


def ms(b):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


# ------------------------------------------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None, help="work folder (default BUILD/bench-work)")
    ap.add_argument("--output", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--quick", action="store_true", help="skip the largest profiles")
    ap.add_argument("--sections", default="all",
                    help="comma-separated subset to run quickly: existing (this script's own measurements), "
                         + ", ".join(original_compare.SECTIONS) + ", matrix; default all. A subset writes "
                         "BUILD/bench-work-subset.md unless --output is given, never BENCHMARKS.md")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work or os.path.join(build, "bench-work"))
    selected = parse_sections(args.sections)
    if "existing" not in selected:
        return original_only(args, build, work, selected)
    tools = {"cli": os.path.join(build, "nnx-conformance"), "run_profile": os.path.join(build, "nnx_run_profile"),
             "core_bench": os.path.join(build, "core_bench"), "forward_bench": os.path.join(build, "forward_bench")}
    missing = [p for p in tools.values() if not os.access(p, os.X_OK)]
    if missing:
        print(f"missing {', '.join(missing)}: run `make test` (or `make build`) first", file=sys.stderr)
        return 2
    if not os.access("/usr/bin/time", os.X_OK):
        log("no /usr/bin/time (Debian package `time`): peak RSS columns will read 0 MiB")
    bpy = bench_python(build)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    cli = tools["cli"]
    started = time.time()
    load_before = loadavg()
    results = {}  # target key -> dict
    sections = []

    # 1. The tested profiles: a two-profile report (validate), one record (execute), full runs (engine share).
    log("run of both tested profiles (the report for validate / execute)")
    tested = os.path.join(work, "tested")
    wall, rss, rc, out, err = timed([cli, "run", "--output", os.path.join(tested, "report.json"), "--force"],
                                    env=env)
    if rc != 0:
        print(out, err, file=sys.stderr)
        return 2
    report = os.path.join(tested, "report.json")
    artifacts = os.path.join(tested, "report-artifacts")
    with open(report) as f:
        document = json.load(f)
    record_path = os.path.join(tested, "torchscript.record.json")
    with open(record_path, "w") as f:
        json.dump(document["profiles"][0], f, indent=2, sort_keys=True)

    log("full runs of the tested torchscript profile: engine share, and the Python baseline's run")
    run_rows = []
    profile_json = os.path.join(work, "tested-profile.json")
    with open(profile_json, "w") as f:
        json.dump({"name": TORCHSCRIPT}, f)
    for i in range(5):
        folder = os.path.join(work, f"run-{i}")
        tpath = os.path.join(work, f"run-{i}.timings.json")
        w, r, rc, _, e = timed([cli, "run", "--output", os.path.join(folder, "r.json"), "--profile", TORCHSCRIPT,
                                "--force", "--quiet", "--timings", tpath], env=env)
        t = parse_timing(tpath)
        bw, br, brc, _, _ = timed([bpy, os.path.join(ROOT, "bench", "baseline_check.py"), "run", profile_json,
                                   os.path.join(work, f"baseline-run-{i}")])
        run_rows.append((w, r, t, bw, br))
    shares = sorted(((w - t["worker_s"] - t["load_s"]) / w, w, t) for w, _, t, _, _ in run_rows)
    share, run_wall, run_t = shares[len(shares) // 2]
    engine = run_wall - run_t["worker_s"] - run_t["load_s"]
    results["engine_share"] = {
        "target": "engine's own time < 5% of a full `run` (tested profile)",
        "value": f"{share * 100:.1f}% ({fmt_s(engine)} of {fmt_s(run_wall)}, median of 5 runs); "
                 f"{(engine - run_t['runtime_open_s']) / run_wall * 100:.1f}% if opening ONNX Runtime "
                 f"({fmt_s(run_t['runtime_open_s'])}) counts as the runtime's, not the engine's",
        "ok": share < 0.05}
    run_med = statistics.median(r[0] for r in run_rows)
    base_run_med = statistics.median(r[3] for r in run_rows)
    sections.append(("Full run of the tested torchscript profile (5 runs, medians)", [
        "| What | Wall | Peak RSS |", "|---|---|---|",
        f"| `nnx-conformance run --profile {TORCHSCRIPT}` | {fmt_s(run_med)} | {fmt_mib(statistics.median(r[1] for r in run_rows))} (the largest process of the tree: the PyTorch worker) |",
        f"| of which the exporter worker (`--timings` worker_start with its imports, export, check) | {fmt_s(statistics.median(r[2]['worker_s'] for r in run_rows))} | |",
        f"| of which the load stage (verify + ONNX Runtime session creation) | {fmt_s(statistics.median(r[2]['load_s'] for r in run_rows))} | |",
        f"| the engine's own time (all the rest: process start, source detection, weights, manifest, parity, report) | {fmt_s(statistics.median(r[0] - r[2]['worker_s'] - r[2]['load_s'] for r in run_rows))} | |",
        f"| of which opening ONNX Runtime (dlopen and its environment: its one-time initialisation) | {fmt_s(statistics.median(r[2]['runtime_open_s'] for r in run_rows))} | |",
        f"| baseline `bench/baseline_check.py run` (same job in plain Python) | {fmt_s(base_run_med)} | {fmt_mib(statistics.median(r[4] for r in run_rows))} |",
    ]))

    # 2. execute vs the baseline's re-check.
    log("execute of the tested record vs the baseline's re-check")
    exe = [cli, "execute", record_path, artifacts]
    recheck = [bpy, os.path.join(ROOT, "bench", "baseline_check.py"), "recheck", record_path, artifacts]
    (t_exe, t_re), _, codes = interleaved([exe, recheck], 7)
    exe_rss = timed(exe)[1]
    re_rss = timed(recheck)[1]
    ratio = t_re / t_exe
    results["execute"] = {"target": "`execute` of a tested record >= 20x faster than the baseline re-check",
                          "value": f"{ratio:.1f}x ({fmt_s(t_exe)} vs {fmt_s(t_re)})", "ok": ratio >= 20 and codes == [{0}, {0}]}

    # 3. validate vs the Python validator of the same rules.
    log("validate of the two-profile report vs the Python validator")
    val = [cli, "validate", report]
    pyval = [os.path.join(ROOT, ".venv", "bin", "python"), os.path.join(ROOT, "bench", "baseline_validate.py"), report]
    (t_val, t_pyval), _, vcodes = interleaved([val, pyval], 40, warmup=3)
    floor, _, _ = interleaved([["/bin/true"], [pyval[0], "-c", "pass"]], 40, warmup=3)
    inproc = subprocess.run([pyval[0], "-c", (
        "import sys, time; sys.path.insert(0, %r); import baseline_validate as v\n"
        "t = time.perf_counter(); n = 200\n"
        "for _ in range(n):\n"
        "    d = v.load_strict(%r); p = [v.record_problems(r) for r in d['profiles']]\n"
        "print((time.perf_counter() - t) / n)") % (os.path.join(ROOT, "bench"), report)],
        capture_output=True, text=True)
    py_inproc = float(inproc.stdout.strip() or "nan")
    ratio = t_pyval / t_val
    results["validate"] = {"target": "`validate` of a two-profile report >= 20x faster than a Python validator",
                           "value": f"{ratio:.1f}x ({fmt_s(t_val)} vs {fmt_s(t_pyval)})",
                           "ok": ratio >= 20 and vcodes == [{0}, {0}]}

    # 4. verify of a folder holding 1 GiB of external data vs sha256sum.
    log("verify of 1 GiB of external data vs sha256sum")
    vroot = os.path.join(work, "verify")
    vfolder = os.path.join(vroot, TORCHSCRIPT)
    shutil.copytree(os.path.join(artifacts, TORCHSCRIPT), vfolder)
    vrecord = json.loads(json.dumps(document["profiles"][0]))
    import hashlib
    for i in range(4):
        name = f"weights-{i}.data"
        h = hashlib.sha256()
        with open(os.path.join(vfolder, name), "wb") as f:
            for _ in range(256):
                chunk = os.urandom(1 << 20)
                h.update(chunk)
                f.write(chunk)
        vrecord["artifacts"]["files"].append({"path": name, "role": "external-data", "bytes": 256 << 20,
                                              "sha256": h.hexdigest()})
    vrecord["artifacts"]["files"].sort(key=lambda e: e["path"])
    vrecord_path = os.path.join(vroot, "record.json")
    with open(vrecord_path, "w") as f:
        json.dump(vrecord, f, indent=2, sort_keys=True)
    files = sorted(os.path.join(vfolder, n) for n in os.listdir(vfolder))
    total_bytes = sum(os.path.getsize(p) for p in files)
    verify_cmd = [cli, "verify", vrecord_path, vroot]
    (t_ver, t_sum), _, ver_codes = interleaved([verify_cmd, ["sha256sum", *files]], 3)
    ver_rss = timed(verify_cmd)[1]
    small_rss = timed([cli, "verify", record_path, artifacts])[1]
    sum_rss = timed(["sha256sum", *files])[1]
    ratio = (total_bytes / t_ver) / (total_bytes / t_sum)
    results["verify"] = {"target": "verify of 1 GiB external data >= 0.9x sha256sum throughput, memory flat",
                         "value": f"{ratio:.2f}x ({total_bytes / t_ver / 1e6:.0f} MB/s vs {total_bytes / t_sum / 1e6:.0f} MB/s); "
                                  f"peak RSS {fmt_mib(ver_rss)} for 1 GiB vs {fmt_mib(small_rss)} for the 1 KiB folder",
                         "ok": ratio >= 0.9 and ver_codes[0] == {0} and HAVE_TIME and ver_rss < small_rss + 32 * 1024}
    shutil.rmtree(vroot, ignore_errors=True)

    # 5. The largest profiles: native forward vs ONNX Runtime; execute's peak RSS.
    large_rows = []
    if not args.quick:
        big = [
            ("deep: 4-(512 x 64 layers)-2", profile("deep", 4, [512] * 64, 2, [1, 7, 32768], std=0.0625)),
            ("wide: 4-4096-4088-2", profile("wide", 4, [4096, 4088], 2, [1, 7, 4096], std=0.02)),
        ]
        worst_ratio, worst_rss = 0.0, 0.0
        for label, prof in big:
            log(f"largest profile {label}: run, execute, native forward vs ONNX Runtime")
            root = os.path.join(work, "large")
            record, rwall, rrss, rrc, rt = run_custom(tools, prof, root, env)
            ewall, erss, erc, eout, _ = timed([cli, "execute", record, root])
            fb = bench_rows(google_benchmark(tools["forward_bench"], [f"--record={record}", f"--root={root}",
                                                                      "--iterations=3"],
                                             os.path.join(work, f"forward-{prof['name']}.json")))
            native, ort = ms(fb["native_forward"]), ms(fb["ort_run"])
            weights = weights_of(prof["model"])
            widest = max([prof["model"]["input_dim"], *prof["model"]["hidden_dims"], prof["model"]["output_dim"]])
            budget_kib = 3 * (weights * 4 + max(prof["batches"]) * widest * 4) / 1024
            worst_ratio = max(worst_ratio, native / ort)
            worst_rss = max(worst_rss, erss / budget_kib)
            summary = eout.strip().splitlines()[0] if eout.strip() else f"exit {erc}"
            large_rows.append(
                f"| {label}, {weights:,} weights, case [{max(prof['batches'])}, {prof['model']['input_dim']}] "
                f"| {fmt_s(native / 1000)} | {fmt_s(ort / 1000)} | {native / ort:.2f} "
                f"| {fmt_s(rwall)} (worker {fmt_s(rt['worker_s'])}) | {fmt_s(ewall)} | {fmt_mib(erss)} of {fmt_mib(budget_kib)} "
                f"| {fmt_s(ms(fb['rebuild_weights']) / 1000)} | {fmt_s(ms(fb['load_session']) / 1000)} | {summary.split(';')[0]}; "
                f"{summary.split(';')[-1].strip()} |")
        results["forward"] = {"target": "largest profiles: native forward within 1.5x of ONNX Runtime (1 thread)",
                              "value": f"worst native/ORT = {worst_ratio:.2f}", "ok": worst_ratio <= 1.5}
        results["rss"] = {"target": "largest profiles: execute peak RSS within 3x (weights + largest activation)",
                          "value": f"worst {worst_rss:.2f} of the 3x budget", "ok": HAVE_TIME and worst_rss <= 1.0}

    # 6. The scaling table.
    log("scaling table")
    scale_rows = []
    sizes = [("58", 4, [8], 2, 0.5), ("~2^12", 4, [64, 58], 2, 0.1), ("~2^16", 4, [256, 248], 2, 0.06),
             ("~2^20", 4, [1024, 1020], 2, 0.04)]
    if not args.quick:
        sizes.append(("~2^24", 4, [4096, 4088], 2, 0.02))
    grid = [(s, [1, 2, 3, 7]) for s in sizes]
    grid += [(sizes[0], list(range(1, 17))), (sizes[0], list(range(1, 65))),
             (sizes[3], list(range(1, 17))), (sizes[3], list(range(1, 65)))]
    for (label, i, hidden, o, std), batches in grid:
        prof = profile(f"scale-{len(hidden)}-{hidden[0]}-{len(batches)}", i, hidden, o, batches, std)
        root = os.path.join(work, "scale")
        runs = sorted((run_custom(tools, prof, root, env) for _ in range(3)), key=lambda r: r[1])
        record, rwall, rrss, rrc, rt = runs[1]
        ewalls = []
        for _ in range(3):
            ew, er, erc, eo, _ = timed([cli, "execute", record, root])
            ewalls.append((ew, er, erc))
        ew, er, erc = sorted(ewalls)[1]
        scale_rows.append((weights_of(prof["model"]), len(batches) + 1, rwall, rt["worker_s"], rrss, ew, er,
                           "passed" if rrc == 0 and erc == 0 else f"exit {rrc}/{erc}"))
        shutil.rmtree(os.path.join(root, prof["name"]), ignore_errors=True)

    # 7. Google Benchmark: the core's hot paths.
    log("Google Benchmark: core_bench")
    core = bench_rows(google_benchmark(tools["core_bench"], [f"--report={report}", f"--root={artifacts}",
                                                             "--benchmark_min_time=0.2"],
                                       os.path.join(work, "core_bench.json")))

    original_results, original_sections = run_original_sections(cli, build, work, selected, record_path, artifacts)
    original_sections += run_matrix_section(cli, work, selected)

    elapsed = time.time() - started
    load_after = loadavg()

    # ---------------------------------------------------------------------------------- BENCHMARKS.md
    command = ".venv/bin/python scripts/run_benchmarks.py" + (" --quick" if args.quick else "")
    produced = " ".join([".venv/bin/python", "scripts/run_benchmarks.py", *sys.argv[1:]])
    lines = [
        "# Benchmarks",
        "",
        f"Produced by `{produced}`; regenerate with `make test && {command}`",
        "(from a fresh clone; the script sets up its own baseline venv",
        "`build/bench-venv` with the `onnxruntime` Python package, never touching `.venv`). Every number below comes",
        "from that one run on this machine; ratios compare runs that were interleaved (A, B, A, B, ...) so that load",
        "from other processes hits both sides alike. Whole-command times are process wall times, start-up and imports",
        "included; peak RSS is `/usr/bin/time`'s maximum resident set size.",
        "",
        f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; run took {elapsed / 60:.1f} min; "
        f"load average {load_before} before, {load_after} after",
        f"- Machine: {machine_text()}",
        f"- ONNX Runtime {ORT_VERSION} (C API for nnx-conformance; the same release's wheel for the baseline), "
        f"single-threaded sessions on both sides",
        "",
        "## Targets",
        "",
        "| Target | Measured | Holds |",
        "|---|---|---|",
    ]
    for key in ("execute", "validate", "verify", "forward", "rss", "engine_share"):
        if key in results:
            r = results[key]
            lines.append(f"| {r['target']} | {r['value']} | {'yes' if r['ok'] else '**no**'} |")
    lines += ["", "Details and why a target does not hold: see the sections below.", ""]
    lines += original_report_lines(original_results, original_sections)
    for title, rows in sections:
        lines += [f"## {title}", "", *rows, ""]
    lines += [
        "## execute and validate against the Python baselines",
        "",
        "| Command | Median wall | Peak RSS |",
        "|---|---|---|",
        f"| `nnx-conformance execute` of the tested torchscript record (7 runs) | {fmt_s(t_exe)} | {fmt_mib(exe_rss)} |",
        f"| `bench/baseline_check.py recheck` (hashlib, torch rebuild, onnxruntime, numpy; 7 runs) | {fmt_s(t_re)} | {fmt_mib(re_rss)} |",
        f"| `nnx-conformance validate` of the two-profile report (40 runs) | {fmt_s(t_val)} | |",
        f"| `bench/baseline_validate.py` (plain-Python validator of record-format §6; 40 runs) | {fmt_s(t_pyval)} | |",
        f"| process floor: `/bin/true` | {fmt_s(floor[0])} | |",
        f"| process floor: `.venv/bin/python -c pass` | {fmt_s(floor[1])} | |",
        f"| in-process: strict read + validate of the report, C++ (core_bench BM_ReadValidateReport) | {fmt_s(ms(core['BM_ReadValidateReport']) / 1000)} | |",
        f"| in-process: the same in the Python validator (200 loops) | {fmt_s(py_inproc)} | |",
        "",
        f"The validate ratio is bounded by process start-up: an empty Python process costs {fmt_s(floor[1])} here, "
        f"a process that does nothing (`/bin/true`) {fmt_s(floor[0])}, so even a validator that took no time at all "
        f"would be at most {(t_pyval) / floor[0]:.0f}x faster than the Python one. The C++ validation itself takes "
        f"{fmt_s(ms(core['BM_ReadValidateReport']) / 1000)} in-process against {fmt_s(py_inproc)} for the Python code "
        f"({py_inproc / (ms(core['BM_ReadValidateReport']) / 1000):.1f}x); the rest of `validate`'s "
        f"{fmt_s(t_val)} is the dynamic loader and C++ runtime start-up (libstdc++, libcrypto, CPUID probing "
        "by glibc, libgcc and OpenSSL, which traps to the hypervisor on this virtual machine).",
        "",
        "## verify: 1 GiB of external data",
        "",
        "The limits cap a real model at 2^24 weights (64 MiB), so the folder is the tested torchscript profile's folder",
        "plus four 256 MiB external-data files of random bytes, listed in a copy of its record; both tools read the",
        "files from the page cache (one warm-up run each, then 3 interleaved runs).",
        "",
        "| Command | Median wall | Throughput | Peak RSS |",
        "|---|---|---|---|",
        f"| `nnx-conformance verify` ({total_bytes / GIB:.2f} GiB) | {fmt_s(t_ver)} | {total_bytes / t_ver / 1e6:.0f} MB/s | {fmt_mib(ver_rss)} |",
        f"| `sha256sum` of the same files | {fmt_s(t_sum)} | {total_bytes / t_sum / 1e6:.0f} MB/s | {fmt_mib(sum_rss)} |",
        f"| `nnx-conformance verify` of the tested folder (1 KiB) | | | {fmt_mib(small_rss)} |",
        "",
    ]
    if large_rows:
        lines += [
            "## The largest profiles",
            "",
            "deep: 64 hidden layers of 512 (std 0.0625 keeps the activations finite through 64 ReLU layers); wide: two",
            "hidden layers of 4096 and 4088 (2^24 - 22 weights, std 0.02); each with batches 1, 7 and the batch that puts",
            "2^24 values in its widest layer. Native forward and ONNX Runtime's run are timed in one process by",
            "`bench/forward_bench` on the largest case (3 iterations each, OpenBLAS and the session both on one thread);",
            "the memory budget is 3 x (weights + largest activation) x 4 bytes.",
            "",
            "| Profile | Native forward | ONNX Runtime run | Ratio | `run` (nnx_run_profile) | `execute` | execute peak RSS of budget | weights rebuild | verify + session | execute says |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *large_rows,
            "",
        ]
    lines += [
        "## Scaling",
        "",
        "A custom profile per row (input 4, two hidden layers, output 2; `tests/tools/nnx_run_profile` for run, then",
        "`nnx-conformance execute`, each the median of 3 runs); cases = valid batches (1, 2, 3, 7; or 1..16; or 1..64)",
        "+ the refusal case. Peak RSS of `run` is that of the largest process in the tree, the PyTorch worker.",
        "",
        "| Weights | Cases | run | of which exporter worker | run peak RSS | execute | execute peak RSS | Outcome |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w, cases, rw, worker, rr, ew, er, outcome in scale_rows:
        lines.append(f"| {w:,} | {cases} | {fmt_s(rw)} | {fmt_s(worker)} | {fmt_mib(rr)} | {fmt_s(ew)} | {fmt_mib(er)} | {outcome} |")
    five = [r for r in scale_rows if r[1] == 5]
    mid = {r[1]: r for r in scale_rows if r[0] == five[3][0]} if len(five) >= 4 else {}
    if len(five) >= 2:
        small, large = five[0], five[-1]
        per_case = (mid[65][5] - mid[5][5]) / 60 if 65 in mid and 5 in mid else float("nan")
        lines += ["", (
            f"How cost grows: from {small[0]:,} to {large[0]:,} weights ({large[0] / small[0]:,.0f}x) `run` goes from "
            f"{fmt_s(small[2])} to {fmt_s(large[2])} and `execute` from {fmt_s(small[5])} to {fmt_s(large[5])}, i.e. "
            f"both are fixed start-up costs (the worker's PyTorch import for run; process and ONNX Runtime start-up "
            f"for execute) up to about 2^20 weights and grow linearly with the weights above (draws, hashes, export, "
            f"session), while each case adds a forward on both sides in proportion to batch x weights "
            f"({fmt_s(per_case)} per extra case of batch <= 64 at {five[3][0]:,} weights); memory follows the weights.")]
    lines += [
        "",
        "## Google Benchmark: the core's hot paths (`build/core_bench`)",
        "",
        "| Benchmark | Wall time | CPU time | Throughput / counters (per wall second) |",
        "|---|---|---|---|",
    ]
    for name, b in core.items():
        extra = []
        if "bytes_per_second" in b:
            extra.append(f"{b['bytes_per_second'] / 1e6:.0f} MB/s")
        for k in ("FLOPS", "weights/s", "records", "cases", "weights"):
            if k in b:
                v = b[k]
                extra.append(f"{k} {v / 1e9:.1f} G" if k == "FLOPS" else f"{k} {v:,.0f}")
        cpu = b["cpu_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        lines.append(f"| {name} | {fmt_s(ms(b) / 1000)} | {fmt_s(cpu)} | {', '.join(extra)} |")
    lines += [
        "",
        "Regenerate with `make test && " + command + "`. The programs: `bench/core_bench.cc` (SHA-256, verify,",
        "strict JSON + validate, native forward, parity), `bench/forward_bench.cc` (native forward vs ONNX Runtime",
        "on a record's largest case), the baselines `bench/baseline_check.py` and `bench/baseline_validate.py`.",
        "",
    ]
    with open(args.output, "w") as f:
        f.write("\n".join(lines))
    log(f"wrote {args.output}")
    print()
    for key in ("execute", "validate", "verify", "forward", "rss", "engine_share"):
        if key in results:
            r = results[key]
            print(f"{'HOLDS' if r['ok'] else 'FAILS'}  {r['target']}: {r['value']}")
    for r in original_results.values():
        print(f"{'PASS' if r['ok'] else 'MISS'}  {r['target']}: {r['value']}")
    shutil.rmtree(os.path.join(work, "large"), ignore_errors=True)
    return 0 if all(r["ok"] for r in [*results.values(), *original_results.values()]) else 1


# ------------------------------------------------------------------- the published original as baseline

def parse_sections(text):
    known = ["existing", *original_compare.SECTIONS, "matrix"]
    chosen = known if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in known]
    if unknown:
        print(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        raise SystemExit(2)
    return chosen


def run_original_sections(cli, build, work, selected, record_path, artifacts):
    """Runs the selected original-* sections (bench/original_compare.py); a missing flag or venv stops the
    benchmark with exit 2 and says what is missing."""
    results, sections = {}, []
    calls = {
        "original-run": lambda: original_compare.original_run(cli, build, work),
        "original-scaling": lambda: original_compare.original_scaling(cli, build, work),
        "original-inproc": lambda: original_compare.original_inproc(build, record_path, artifacts),
        "original-rss": lambda: original_compare.original_rss(cli, build, work),
    }
    for name in selected:
        if name not in calls:
            continue
        log(f"{name}: {original_compare.SECTIONS[name]}")
        try:
            res, rows = calls[name]()
        except original_compare.SetupError as e:
            print(f"benchmark section {name}: {e}", file=sys.stderr)
            raise SystemExit(2)
        results.update(res)
        sections.append((f"Against the original thekaveh-nnx 0.4.1: {original_compare.SECTIONS[name]}", rows))
    return results, sections


def run_matrix_section(cli, work, selected):
    """The `matrix` section (bench/matrix_bench.py) as [(title, rows)] when selected; a setup problem exits 2."""
    if "matrix" not in selected:
        return []
    log(f"matrix: {matrix_bench.TITLE}")
    try:
        rows = matrix_bench.matrix_section(cli, work)
    except matrix_bench.SetupError as e:
        print(f"benchmark section matrix: {e}", file=sys.stderr)
        raise SystemExit(2)
    for row in rows[-2:]:
        log(row)
    return [(matrix_bench.TITLE, rows)]


def original_report_lines(results, sections):
    if not sections:
        return []
    lines = (["## Targets against the published original (thekaveh-nnx 0.4.1, build/original-venv)", "",
             *original_compare.target_lines(results), "", *original_compare.miss_lines(results)]
             if results else [])
    for title, rows in sections:
        lines += [f"## {title}", "", *rows, ""]
    return lines


def original_only(args, build, work, selected):
    """--sections without `existing`: only the original-* sections, a report of their own (not BENCHMARKS.md
    unless --output names it)."""
    cli = os.path.join(build, "nnx-conformance")
    if not os.access(cli, os.X_OK):
        print(f"missing {cli}: run `make build` first", file=sys.stderr)
        return 2
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    record_path = artifacts = None
    if "original-inproc" in selected:  # a tested record and its folder to validate / verify
        tested = os.path.join(work, "tested")
        wall, rss, rc, out, err = timed([cli, "run", "--output", os.path.join(tested, "report.json"), "--force",
                                         "--profile", TORCHSCRIPT])
        if rc != 0:
            print(out, err, file=sys.stderr)
            return 2
        with open(os.path.join(tested, "report.json")) as f:
            document = json.load(f)
        record_path = os.path.join(tested, "torchscript.record.json")
        with open(record_path, "w") as f:
            json.dump(document["profiles"][0], f, indent=2, sort_keys=True)
        artifacts = os.path.join(tested, "report-artifacts")
    results, sections = run_original_sections(cli, build, work, selected, record_path, artifacts)
    sections += run_matrix_section(cli, work, selected)
    output = args.output if args.output != os.path.join(ROOT, "BENCHMARKS.md") or "--output" in sys.argv \
        else os.path.join(build, "bench-work-subset.md")
    with open(output, "w") as f:
        f.write("\n".join(["# Benchmarks (subset: " + ", ".join(selected) + ")", "",
                           f"- Machine: {machine_text()}; load average {loadavg()}", "",
                           *original_report_lines(results, sections)]))
    log(f"wrote {output}")
    for r in results.values():
        print(f"{'PASS' if r['ok'] else 'MISS'}  {r['target']}: {r['value']}")
    return 0 if all(r["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
