"""Localisation of the built-in network's records, the tested profiles (doc/localisation.md, "The built-in
network"): the network is rebuilt from the record's config and weights, PyTorch's values taken per FX node
(dynamo) or per Linear layer (TorchScript), and a departure's repro lives beside the record, in the sibling
folder `<profile>-repro` the report names, never in the v1 record's artifact list: the published original
still validates the record and verifies its artifacts.

The departure is the one injected fault of a graph (shift-outputs: model.onnx rewritten so logits = original
+ 1e-3, tests/fakes/faults.py), since nothing real makes our own network's export depart; everything after
it (exporters, ONNX Runtime, PyTorch's values, the repro and its replay) is real."""
import json
import os
import subprocess

from conftest import fault_env, run_cli
from localisation_support import localisation_of

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"
ORIGINAL_CHECK = ("import json, sys\nfrom nnx.export_conformance import validate_record, verify_artifacts\n"
                  "for record in json.load(open(sys.argv[1]))['profiles']:\n"
                  "    validate_record(record); verify_artifacts(record, sys.argv[2])\n"
                  "print('accepted')")


def original_accepts(original_python, report, artifacts) -> bool:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(original_python), "-c", ORIGINAL_CHECK, str(report), str(artifacts)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip() == "accepted"


def test_a_shifted_output_of_a_tested_profile_is_localised_and_its_repro_lives_beside_the_record(
        tmp_path, original_python):
    done = run_cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT, env=fault_env("shift-outputs"))
    assert done.returncode == 16, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "r.json").read_text())["profiles"]
    found = localisation_of(record)
    assert found["status"] == "departs", found
    assert found["coverage"]["reference"] == "PyTorch" and found["coverage"]["granularity"] == "module"
    first = found["first_departing"]
    assert (first["op_type"], first["node"], first["value"]) == ("Add", "nnx_fault_shift_add", "logits")
    assert first["rerun"]["verdict"] == "introduces"
    # beside the record: named in the report, never listed among the v1 record's artifacts
    assert found["repro"]["folder"] == f"{TORCHSCRIPT}-repro" and found["repro"]["beside_the_record"] is True
    assert {f["role"] for f in record["artifacts"]["files"]} == {"model"}
    root = tmp_path / "r-artifacts"
    repro = root / f"{TORCHSCRIPT}-repro"
    assert (repro / "model.onnx").is_file() and (repro / "test_data_set_0" / "output_0.pb").is_file()
    assert f"nnx-conformance execute {TORCHSCRIPT}-repro/report.json {TORCHSCRIPT}-repro/artifacts" in done.stdout
    assert run_cli("verify", tmp_path / "r.json", root).returncode == 0
    assert original_accepts(original_python, tmp_path / "r.json", root)
    replayed = run_cli("execute", repro / "report.json", repro / "artifacts")
    assert replayed.returncode == 16, replayed.stdout + replayed.stderr


def test_both_tested_profiles_localise_on_request_and_stay_valid_for_the_published_original(tmp_path, original_python):
    done = run_cli("run", "--output", tmp_path / "r.json", "--localize")
    assert done.returncode == 0, done.stdout + done.stderr
    records = {r["profile"]: r for r in json.loads((tmp_path / "r.json").read_text())["profiles"]}
    dynamo, torchscript = localisation_of(records[DYNAMO]), localisation_of(records[TORCHSCRIPT])
    assert dynamo["status"] == torchscript["status"] == "no-departure"
    assert dynamo["coverage"]["granularity"] == "node" and dynamo["coverage"]["aligned"] >= 3
    assert torchscript["coverage"]["granularity"] == "module"
    assert [level["level"] for level in dynamo["levels"]] == ["ORT_ENABLE_ALL", "ORT_DISABLE_ALL"]
    assert not any(p.name.endswith("-repro") for p in (tmp_path / "r-artifacts").iterdir())  # nothing departs
    assert original_accepts(original_python, tmp_path / "r.json", tmp_path / "r-artifacts")
