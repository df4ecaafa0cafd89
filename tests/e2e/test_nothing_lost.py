"""Nothing lost (issue 38): a profile the reader accepts never makes a record the validator refuses, so one
profile's settings never cost the whole report; a stage that fails leaves its record valid.

- every rule the record validator applies to a module profile's own settings is checked before anything
  runs (profile/module_spec_rules.h, shared by both): `run` exits 2 naming the profile entry and the rule,
  nothing written; Python raises UsageError;
- a feed-forward profile's batches are kept as given (doc/profile-files.md): batches [2, 2] make two cases
  of one name, and the report is written and valid;
- a store of the case tensors that fails part way (a file grown past RLIMIT_FSIZE: EFBIG, as a full disk
  gives ENOSPC) is that profile's tool-error (exit 19, the tool's own step) with no outputs set on any case, beside the others' records;
- a stored oracle holding +Inf is not measured against (null margins with the reason), and `execute`
  writes its record.
"""
import json
import sys

import pytest

from conftest import BUILD, run_cli
from module_support import WORKER_MODELS, conv_bn_profile, rewrite_stored_tensor, write_profiles
from support import run_cli_in

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

TWO_OUT = {"module": f"{WORKER_MODELS}:two_in_two_out",
           "inputs": [{"name": "x", "shape": ["batch", 4]}, {"name": "y", "shape": ["batch", 5]}]}

# Each breaks a rule the record validator applies to the profile's own settings (doc/record-format.md §10).
SETTINGS_THE_VALIDATOR_REFUSES = {
    "duplicate-output-names": ({**TWO_OUT, "outputs": ["s", "s", "t"]}, 'outputs: the name "s" is given twice'),
    "no-outputs": ({"outputs": []}, "outputs: an empty list names no output"),
    # The match case "image-axis1-4" (the dim at 4) and the refusal case of the image's axis 1 (3 + 1).
    "case-names-meet": ({"inputs": [{"name": "image", "shape": ["image-axis1", 3, 8, 8]}],
                         "dims": {"image-axis1": [2, 4]}}, 'both named "image-axis1-4"'),
    "refusal-folder-too-long": ({"inputs": [{"name": "i" * 250, "shape": ["batch", 3, 8, 8]}]}, "at most 255"),
}


@pytest.mark.parametrize("rule", sorted(SETTINGS_THE_VALIDATOR_REFUSES))
def test_a_profile_the_validator_would_refuse_is_refused_before_anything_runs_naming_its_entry(tmp_path, rule):
    change, needle = SETTINGS_THE_VALIDATOR_REFUSES[rule]
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(name="good"), conv_bn_profile(name="bad", **change)])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line.strip() for line in done.stderr.splitlines() if needle in line]
    assert lines and all(line.startswith("- profiles[1]: ") for line in lines), done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rule", sorted(SETTINGS_THE_VALIDATOR_REFUSES))
def test_python_refuses_the_same_module_profile_with_a_usage_error(tmp_path, rule):
    change, needle = SETTINGS_THE_VALIDATOR_REFUSES[rule]
    fields = conv_bn_profile(name="bad", **change)
    with pytest.raises(ec.UsageError) as raised:
        profile = ec.ModuleProfile.from_json(fields)
        ec.run_profile(profile, tmp_path)
    assert needle in str(raised.value)
    assert not (tmp_path / "bad").exists()


def test_feed_forward_batches_given_twice_make_a_valid_report(tmp_path):
    profiles = write_profiles(tmp_path / "p.json", [{"name": "twice", "exporter": "torchscript", "batches": [2, 2]}])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "report.json").read_text())["profiles"][0]
    assert [c["name"] for c in record["input_cases"]][:2] == ["batch-2", "batch-2"]
    assert run_cli("validate", tmp_path / "report.json").returncode == 0


def test_a_store_that_fails_part_way_leaves_a_valid_tool_error_record_beside_the_others(tmp_path):
    # batch-1's image (48 KiB) is stored, batch-3's (144 KiB) cannot be: a file limit of 100 KiB.
    big = conv_bn_profile(name="big", inputs=[{"name": "image", "shape": ["batch", 3, 64, 64]}],
                          dims={"batch": [1, 3]})
    feed_forward = {"name": "ff", "exporter": "torchscript", "batches": [1, 2]}
    profiles = write_profiles(tmp_path / "p.json", [big, feed_forward])
    done = run_cli_in(tmp_path, ["run", "--quiet", "--profile-file", profiles, "--output", "report.json"],
                      file_limit=100 << 10)
    assert done.returncode == 19, done.stderr   # the tool's own step: tool-error, never the exporter's
    report = json.loads((tmp_path / "report.json").read_text())
    records = {r["profile"]: r for r in report["profiles"]}
    failed = records["big"]
    assert (failed["failure"], failed["stages"]["export"]["status"]) == ("tool-error", "failed")
    assert "storing the case tensors" in failed["stages"]["export"]["detail"]["error"]
    assert all(c["outputs"] is None for c in failed["input_cases"])
    assert records["ff"]["status"] == "passed"
    assert run_cli("validate", tmp_path / "report.json").returncode == 0


def test_a_stored_oracle_holding_infinity_gives_a_null_margin_with_its_reason_not_a_refused_report(tmp_path):
    profiles = write_profiles(tmp_path / "p.json", [conv_bn_profile(name="cb", dims={"batch": [2, 1]})])
    assert run_cli("run", "--quiet", "--profile-file", profiles, "--output", tmp_path / "report.json").returncode == 0
    rewrite_stored_tensor(tmp_path / "report.json", tmp_path / "report-artifacts", "cb",
                          "oracle_data_set_0/output_0.pb", lambda values: values.reshape(-1).__setitem__(0, float("inf")))
    done = run_cli("execute", tmp_path / "report.json", tmp_path / "report-artifacts",
                   "--output", tmp_path / "again.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "again.json").read_text())["profiles"][0]
    first = record["stages"]["parity"]["detail"]["triangulation"][0]
    reason = "the stored oracle of output " + record["input_cases"][0]["outputs"][0]["name"] + \
        " holds 1 value(s) that are not finite"
    for side in ("runtime_vs_oracle", "reference_vs_oracle"):
        assert first[side] == {"max_abs_error": None, "margin": None, "reason": reason}
    assert record["stages"]["parity"]["detail"]["triangulation"][1]["runtime_vs_oracle"]["margin"] is not None
    assert run_cli("validate", tmp_path / "again.json").returncode == 0


def test_an_output_the_modules_process_cannot_store_is_a_tool_error_and_leaves_no_case_tensor(tmp_path):
    # widens: a 1 KiB image in, 128 KiB of output: its inputs are stored, its outputs (written by the module's
    # process, worker/TENSORS.md "Case tensors as files") outgrow a file limit of 100 KiB.
    widens = {"name": "wide", "exporter": "torchscript", "module": f"{WORKER_MODELS}:widens",
              "inputs": [{"name": "image", "shape": ["batch", 1, 16, 16]}], "dims": {"batch": [1]}}
    profiles = write_profiles(tmp_path / "p.json", [widens])
    done = run_cli_in(tmp_path, ["run", "--quiet", "--profile-file", profiles, "--output", "report.json"],
                      file_limit=100 << 10)
    assert done.returncode == 19, done.stderr  # the tool's own step, never the module's or the exporter's
    record = json.loads((tmp_path / "report.json").read_text())["profiles"][0]
    assert (record["failure"], record["stages"]["export"]["status"]) == ("tool-error", "failed")
    error = record["stages"]["export"]["detail"]["error"]
    assert "storing the case tensors: output output_0 of case batch-1 cannot be written to test_data_set_0/output_0.pb" \
        in error and "File too large" in error, error
    assert all(c["outputs"] is None for c in record["input_cases"])
    assert not list((tmp_path / "report-artifacts" / "wide").rglob("*.pb"))  # none left behind
    assert run_cli("validate", tmp_path / "report.json").returncode == 0
    assert run_cli("verify", tmp_path / "report.json", tmp_path / "report-artifacts").returncode == 0


def test_an_oracle_given_up_part_way_leaves_none_of_its_files_and_the_record_verifies(tmp_path):
    # The module's float64 copy raises on batch-3, the last match case, after the oracle files of batch-2 and
    # batch-1 were written by the module's process: the record names no oracle, so none may stay behind.
    profile = {"name": "halfway", "exporter": "torchscript", "module": f"{WORKER_MODELS}:oracle_fails_on_batch3",
               "inputs": [{"name": "x", "shape": ["batch", 4]}], "dims": {"batch": [2, 1, 3]}}
    profiles = write_profiles(tmp_path / "p.json", [profile])
    done = run_cli("run", "--quiet", "--profile-file", profiles, "--output", tmp_path / "report.json")
    record = json.loads((tmp_path / "report.json").read_text())["profiles"][0]
    assert record["status"] == "passed", done.stderr + json.dumps(record["stages"])
    assert "this module has no float64 batch of 3" in record["stages"]["export"]["detail"]["oracle_missing"]
    outputs = [o for c in record["input_cases"] if c["expect"] == "match" for o in c["outputs"]]
    assert outputs and all(o.get("oracle_file") is None for o in outputs)
    folder = tmp_path / "report-artifacts" / "halfway"
    assert not [p for p in folder.iterdir() if p.name.startswith("oracle_data_set_")]
    assert run_cli("verify", tmp_path / "report.json", tmp_path / "report-artifacts").returncode == 0
