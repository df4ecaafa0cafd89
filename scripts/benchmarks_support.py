"""What scripts/run_benchmarks.py's sections share: the tested profiles' names, the timing of whole
commands (wall time, peak RSS from /usr/bin/time, interleaved runs), the baseline venv build/bench-venv,
the machine's description, custom profiles and their runs, `--timings` and Google Benchmark output, and the
figures' formatting.
"""
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORT_VERSION = "1.30.0"  # the bootstrap's libonnxruntime (doc/building-and-testing.md); the Python baseline uses the same release
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


# The phases of `run --timings` (doc/cli.md, "Progress and timings") that make up each column of the tables:
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
