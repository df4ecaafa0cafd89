"""BENCHMARKS.md's text from the figures scripts/benchmarks_sections.py measured, table by table, and the
sections against the published original (bench/original_compare.py's target and miss lines).
"""
import datetime
import sys

import original_compare  # bench/, on sys.path (scripts/run_benchmarks.py puts it there first)
from benchmarks_support import GIB, ORT_VERSION, fmt_mib, fmt_s, machine_text, ms


def head_lines(args, elapsed, load_before, load_after, results, original_results, original_sections, sections):
    """BENCHMARKS.md from its title to the sections of results: how it was produced, the machine, the targets,
    the sections against the original and the full-run sections. Returns (lines, the command to regenerate)."""
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
    return lines, command


def baseline_lines(lines, figures, core):
    """The execute / validate tables against the Python baselines and the 1 GiB verify table (`figures`:
    what measure_execute, measure_validate and measure_verify returned)."""
    t_exe, t_re, exe_rss, re_rss = (figures[k] for k in ("t_exe", "t_re", "exe_rss", "re_rss"))
    t_val, t_pyval, floor, py_inproc = (figures[k] for k in ("t_val", "t_pyval", "floor", "py_inproc"))
    t_ver, t_sum, total_bytes = (figures[k] for k in ("t_ver", "t_sum", "total_bytes"))
    ver_rss, small_rss, sum_rss = (figures[k] for k in ("ver_rss", "small_rss", "sum_rss"))
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
    return lines


def largest_lines(lines, large_rows):
    """The largest profiles' table (none with --quick)."""
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
    return lines


def scaling_lines(lines, scale_rows):
    """The scaling table and how cost grows."""
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
    return lines


def core_lines(lines, command, core):
    """The Google Benchmark table of the core's hot paths and how to regenerate."""
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
    return lines


def original_report_lines(results, sections):
    if not sections:
        return []
    lines = (["## Targets against the published original (thekaveh-nnx 0.4.1, build/original-venv)", "",
             *original_compare.target_lines(results), "", *original_compare.miss_lines(results)]
             if results else [])
    for title, rows in sections:
        lines += [f"## {title}", "", *rows, ""]
    return lines
