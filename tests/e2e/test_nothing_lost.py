"""Nothing lost (issue 38): a profile the reader accepts never makes a record the validator refuses, so one
profile's settings never cost the whole report; a stage that fails leaves its record valid.

- every rule the record validator applies to a module profile's own settings is checked before anything
  runs (profile/module_spec_rules.h, shared by both): `run` exits 2 naming the profile entry and the rule,
  nothing written; Python raises UsageError;
- a feed-forward profile's batches are kept as given (doc/profile-files.md): batches [2, 2] make two cases
  of one name, and the report is written and valid.
"""
import json
import sys

import pytest

from conftest import BUILD, REPO, run_cli
from module_support import WORKER_MODELS, conv_bn_profile, write_profiles

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
