"""A module at the documented limits runs end to end in `make test` (doc/record-format.md §10: 64 MiB per
stored tensor, 512 MiB of inputs; issue "Tensors of any documented size"): bench/channel_limits.py's profile,
8 match cases of float32 inputs [1, h, 4096] (h = 4096..4089: the largest 64 MiB, about 508 MiB in all) and
float32 outputs whose float64 oracle copies are 64 MiB each, through the real exporter and ONNX Runtime, then
`execute` of its report without Python. Possible since a module export's case tensors are files written one
case at a time (worker/TENSORS.md, "Case tensors as files"): about 25 s here, where one message holding every
case took 425 s. Its peak memory per process is a benchmark (bench/limits_memory.py, BENCHMARKS.md), not a
limit asserted here."""
import json
import sys

from conftest import REPO, run_cli
from module_support import write_profiles

sys.path.insert(0, str(REPO / "bench"))
import channel_limits  # noqa: E402  (the profile at the limits, one rule for the bench and this test)

MIB = 1 << 20


def test_a_module_at_the_documented_limits_passes_at_executed_and_executes_again(tmp_path):
    profiles = write_profiles(tmp_path / "p.json", [channel_limits.profile()])
    done = run_cli("run", "--quiet", "--profile-file", profiles, "--output", tmp_path / "report.json", timeout=900)
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "report.json").read_text())["profiles"][0]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]["export"]
    sizes = {f["path"]: f["bytes"] for f in record["artifacts"]["files"]}
    inputs = [n for p, n in sizes.items() if p.endswith("input_0.pb")]
    oracles = [n for p, n in sizes.items() if p.startswith("oracle_data_set_")]
    assert len(inputs) == len(oracles) == 8
    assert 64 * MIB < max(inputs) < 64 * MIB + 4096 and sum(inputs) > 500 * MIB  # each limit reached
    assert 64 * MIB < max(oracles) < 64 * MIB + 4096
    executed = run_cli("execute", tmp_path / "report.json", tmp_path / "report-artifacts",
                       "--output", tmp_path / "executed.json", timeout=900)
    assert executed.returncode == 0, executed.stderr
    assert json.loads((tmp_path / "executed.json").read_text())["profiles"][0]["status"] == "passed"
