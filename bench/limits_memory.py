"""Peak memory per process of a module at the documented limits (doc/record-format.md §10: 64 MiB per stored
tensor, 512 MiB of inputs; src/profile/module_spec.h, module_limits), run end to end with the command line:
bench/channel_limits.py's profile (8 match cases, each a 64 MiB float32 input, outputs whose float64 oracle
copies are 64 MiB). Run by hand (minutes, a few GiB), not by `make test` or scripts/run_benchmarks.py.

    .venv/bin/python bench/limits_memory.py [--cli build/nnx-conformance] [--work DIR]

Each process of the run's tree is sampled every 50 ms: its VmHWM (the kernel's own peak resident set, so a
peak between two samples is not missed; only the last 50 ms of a process are) from /proc/<pid>/status, its
role from its place in the tree: the core (the command), the worker (the core's child), the worker's forked
child (the export of the module, any depth under the worker); a role's peak is its largest process's (a
short `sh` or `ldconfig` the tree also runs at those depths is far below). Each role's footprint is its
peak in the same profile at a tiny width (8: every tensor under 1 KiB); the goal is peak - footprint <= 3 x
the largest case's tensors (its input, its float32 outputs and their float64 oracle copies). A forked child's
VmHWM counts the worker's pages it shares copy-on-write, as its footprint does. Then `execute` of the run's
report (its stored outputs the reference: the core alone), and Python's `run_profile` of the same profile
(the core inside the Python process, which `env` execs: the "core" role is that Python process, its worker
and the worker's forked child the other two), measured the same way. Prints one line per role, one for
execute, three for Python, and the run's status.
Exits 0 when the record is passed at level executed, execute passes and Python's run passes, whatever the
memory figures.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import channel_limits  # noqa: E402  (the profile at the limits, one rule)

ROLES = ("core", "worker", "forked child")
MIB = 1 << 20


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def hwm_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def sample(root: int, peaks: dict[str, int], names: dict[str, set[str]], stop: threading.Event) -> None:
    while not stop.is_set():
        tree = children_of()
        todo = [(root, 0)]
        while todo:
            pid, depth = todo.pop()
            role = ROLES[min(depth, 2)]
            kib = hwm_kib(pid)
            if kib is not None:
                peaks[role] = max(peaks.get(role, 0), kib)
                try:
                    names[role].add(Path(f"/proc/{pid}/comm").read_text().strip())
                except OSError:
                    pass
            todo += [(child, depth + 1) for child in tree.get(pid, [])]
        stop.wait(0.05)


def sampled(command: list) -> tuple[dict[str, int], dict[str, set[str]], float, int, str]:
    """Runs `command`, its process tree sampled: (peaks by role, process names by role, seconds, exit, stderr)."""
    peaks: dict[str, int] = {}
    names: dict[str, set[str]] = {role: set() for role in ROLES}
    stop = threading.Event()
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sampler = threading.Thread(target=sample, args=(proc.pid, peaks, names, stop))
    sampler.start()
    _, stderr = proc.communicate()
    stop.set()
    sampler.join()
    return peaks, names, time.monotonic() - start, proc.returncode, stderr


def run(cli: str, work: Path, width: int) -> tuple[dict, dict[str, int], dict[str, set[str]], float, int]:
    channel_limits.WIDTH = width
    work.mkdir(parents=True, exist_ok=True)
    (work / "profiles.json").write_text(json.dumps([channel_limits.profile()]))
    peaks, names, seconds, code, stderr = sampled([cli, "run", "--profile-file", str(work / "profiles.json"),
                                                   "--output", str(work / "report.json"), "--force", "--quiet"])
    record = json.loads((work / "report.json").read_text())["profiles"][0]
    if record["status"] != "passed":
        print(stderr[-3000:], file=sys.stderr)
    return record, peaks, names, seconds, code


def execute(cli: str, work: Path) -> tuple[dict, int, float, int]:
    """`execute` of the run's report (the stored outputs its reference, no Python): (its record, the core's
    peak KiB, seconds, exit)."""
    peaks, _, seconds, code, stderr = sampled([cli, "execute", str(work / "report.json"), str(work / "report-artifacts"),
                                               "--output", str(work / "executed.json")])
    report = json.loads((work / "executed.json").read_text())
    record = report["profiles"][0] if "profiles" in report else report
    if record["status"] != "passed":
        print(stderr[-3000:], file=sys.stderr)
    return record, peaks.get("core", 0), seconds, code


PYTHON_RUN = """import json, sys
import nnx.export_conformance as ec
record = ec.run_profile(ec.ModuleProfile.from_json(json.loads(sys.argv[1])), sys.argv[2], force=True)
json.dump(record, open(sys.argv[3], "w"))
"""


def python_api(work: Path, width: int) -> tuple[dict, dict[str, int], float, int]:
    """Python's `run_profile` of the same profile (the core inside the Python process, its worker a child):
    (its record, peaks by role, seconds, exit)."""
    channel_limits.WIDTH = width
    work.mkdir(parents=True, exist_ok=True)
    env_path = str(channel_limits.ROOT / "build" / "python")
    command = ["env", f"PYTHONPATH={env_path}", str(channel_limits.ROOT / ".venv" / "bin" / "python"), "-c",
               PYTHON_RUN, json.dumps(channel_limits.profile()), str(work / "root"), str(work / "record.json")]
    peaks, _, seconds, code, stderr = sampled(command)
    record = json.loads((work / "record.json").read_text()) if code == 0 else {"status": "error", "level": None}
    if record["status"] != "passed":
        print(stderr[-3000:], file=sys.stderr)
    return record, peaks, seconds, code


def largest_case_mib(width: int) -> float:
    """The largest case's tensors: its float32 input [1, width, width], its float32 output [1, width, width/2]
    and that output's float64 oracle copy."""
    elements = width * width
    return (elements * 4 + elements // 2 * 4 + elements // 2 * 8) / MIB


def goal_line(label: str, peak_kib: int, footprint_kib: int, largest: float, rest: str) -> str:
    """One process's line: its peak and footprint (MiB), what it holds over the footprint against the goal."""
    peak, foot = peak_kib / 1024, footprint_kib / 1024
    over = peak - foot
    return (f"{label} peak_mib={peak:.0f} footprint_mib={foot:.0f} over_mib={over:.0f} x_largest={over / largest:.2f} "
            f"goal={'met' if over <= 3 * largest else 'MISSED'} {rest}")


def main() -> int:
    cli, work = channel_limits.cli_and_work(__doc__, "nnx-limits-memory-")
    width = channel_limits.WIDTH
    _, small, _, small_seconds, _ = run(cli, work / "footprint", 8)
    record, peaks, names, seconds, code = run(cli, work / "limits", width)
    largest = largest_case_mib(width)
    print(f"status={record['status']} level={record['level']} exit={code} seconds={seconds:.1f} "
          f"(footprint run {small_seconds:.1f} s) largest_case_mib={largest:.0f} goal_mib={3 * largest:.0f}")
    for role in ROLES:
        print(goal_line(f"{role:13s}", peaks.get(role, 0), small.get(role, 0), largest,
                        f"processes={','.join(sorted(names[role]))}"))
    _, small_core, _, _ = execute(cli, work / "footprint")
    executed, core, execute_seconds, execute_code = execute(cli, work / "limits")
    print(goal_line("execute      ", core, small_core, largest,
                    f"status={executed['status']} exit={execute_code} seconds={execute_seconds:.1f}"))
    _, small_python, _, _ = python_api(work / "python-footprint", 8)
    through_python, python_peaks, python_seconds, python_code = python_api(work / "python", width)
    for role in ROLES:
        print(goal_line(f"python {role:13s}", python_peaks.get(role, 0), small_python.get(role, 0), largest,
                        f"status={through_python['status']} exit={python_code} seconds={python_seconds:.1f}"))
    passed = (record["status"], record["level"]) == ("passed", "executed") and executed["status"] == "passed" \
        and (through_python["status"], through_python["level"]) == ("passed", "executed")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
