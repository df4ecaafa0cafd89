"""The measurements of scripts/run_benchmarks.py's `existing` section, one function each (1. the tested
profiles and full runs, 2. execute, 3. validate, 4. verify of 1 GiB, 5. the largest profiles, 6. the
scaling table, 7. Google Benchmark); each puts its targets into `results` and returns the figures
BENCHMARKS.md shows (scripts/benchmarks_markdown.py).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

from benchmarks_support import (HAVE_TIME, ROOT, TORCHSCRIPT, bench_rows, fmt_mib, fmt_s, google_benchmark,
                                interleaved, log, ms, parse_timing, profile, run_custom, timed, weights_of)


def measure_tested_report(cli, env, work):
    """Section 1: a run of both tested profiles, its report and one record (for validate, execute, verify);
    a failed run stops the benchmark with exit 2. Returns (report, artifacts, document, record_path)."""
    # 1. The tested profiles: a two-profile report (validate), one record (execute), full runs (engine share).
    log("run of both tested profiles (the report for validate / execute)")
    tested = os.path.join(work, "tested")
    wall, rss, rc, out, err = timed([cli, "run", "--output", os.path.join(tested, "report.json"), "--force"],
                                    env=env)
    if rc != 0:
        print(out, err, file=sys.stderr)
        raise SystemExit(2)
    report = os.path.join(tested, "report.json")
    artifacts = os.path.join(tested, "report-artifacts")
    with open(report) as f:
        document = json.load(f)
    record_path = os.path.join(tested, "torchscript.record.json")
    with open(record_path, "w") as f:
        json.dump(document["profiles"][0], f, indent=2, sort_keys=True)
    return report, artifacts, document, record_path


def measure_full_runs(cli, env, work, bpy, results, sections):
    """Section 1 (continued): 5 full runs of the tested torchscript profile beside the Python baseline's run;
    the engine's share of a run (into `results`) and its table (into `sections`)."""
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


def measure_execute(cli, bpy, record_path, artifacts, results):
    """Section 2: execute of the tested record vs the baseline's re-check (the target into `results`)."""
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
    return {"t_exe": t_exe, "t_re": t_re, "exe_rss": exe_rss, "re_rss": re_rss}


def measure_validate(cli, report, results):
    """Section 3: validate of the two-profile report vs the Python validator, processes and in-process."""
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
    return {"t_val": t_val, "t_pyval": t_pyval, "floor": floor, "py_inproc": py_inproc}


def measure_verify(cli, work, artifacts, document, record_path, results):
    """Section 4: verify of a folder holding 1 GiB of external data vs sha256sum, and its peak RSS."""
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
    return {"t_ver": t_ver, "t_sum": t_sum, "total_bytes": total_bytes, "ver_rss": ver_rss, "small_rss": small_rss,
            "sum_rss": sum_rss}


def measure_largest(args, cli, env, work, tools, results):
    """Section 5 (not with --quick): the largest profiles, native forward vs ONNX Runtime and execute's peak
    RSS; returns their table rows."""
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
    return large_rows


def measure_scaling(args, cli, env, work, tools):
    """Section 6: the scaling table's rows (run and execute of custom profiles by weights and cases)."""
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
    return scale_rows


def measure_core(tools, report, artifacts, work):
    """Section 7: Google Benchmark of the core's hot paths (build/core_bench), by benchmark name."""
    # 7. Google Benchmark: the core's hot paths.
    log("Google Benchmark: core_bench")
    core = bench_rows(google_benchmark(tools["core_bench"], [f"--report={report}", f"--root={artifacts}",
                                                             "--benchmark_min_time=0.2"],
                                       os.path.join(work, "core_bench.json")))
    return core
