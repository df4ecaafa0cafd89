"""The host a record was produced on (doc/record-format.md §11, "session settings, precision and the host"):
`versions.host` (CPU model and flags, OS, kernel, machine, libc: base/host_facts.h) in every module and
successor-format record that `run` or `execute` writes, and never in a tested profile's v1 record, which stays
the brief's (the published original validates it)."""
import json

from conftest import run_cli
from onnx_file_support import elementwise_profile

HOST_KEYS = {"cpu", "cpu_flags", "os", "kernel", "machine", "libc", "environment"}


def test_a_successor_format_record_names_the_host_it_was_run_and_executed_on(tmp_path):
    (tmp_path / "profiles.json").write_text(json.dumps([elementwise_profile(tmp_path / "model", ["Exp"], 1e-4, 1e-5)]))
    done = run_cli("run", "--profile-file", tmp_path / "profiles.json", "--output", tmp_path / "report.json",
                   "--no-localize")
    assert done.returncode == 0, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "report.json").read_text())["profiles"]
    assert record["format"] == "nnx.model-conformance/1"
    host = record["versions"]["host"]
    assert set(host) == HOST_KEYS and host["machine"] and host["cpu_flags"] == sorted(set(host["cpu_flags"]))
    done = run_cli("execute", tmp_path / "report.json", tmp_path / "report-artifacts", "--output", tmp_path / "ex.json")
    assert done.returncode == 0, done.stdout + done.stderr
    (executed,) = json.loads((tmp_path / "ex.json").read_text())["profiles"]
    assert executed["versions"]["host"] == host  # the same machine
    assert run_cli("validate", tmp_path / "ex.json").returncode == 0


def test_a_tested_profiles_v1_record_holds_no_host_run_or_executed(both_profiles, tmp_path):
    _, report, artifacts = both_profiles
    (tmp_path / "report.json").write_text(json.dumps(report))
    done = run_cli("execute", tmp_path / "report.json", artifacts, "--output", tmp_path / "ex.json")
    assert done.returncode == 0, done.stdout + done.stderr
    executed = json.loads((tmp_path / "ex.json").read_text())["profiles"]
    for record in report["profiles"] + executed:
        assert record["format"] == "nnx.export-conformance/1" and "host" not in record["versions"]
