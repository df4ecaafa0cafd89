"""A tolerance that cannot fail (doc/record-format.md §10): torchvision's EfficientNet-B0 with random weights
(tests/models/tiny_logits.py) has logits of about 1e-13, so atol 1e-5 would pass an all-zero output; its record's
parity detail and the run's summary line say so. A tolerance that can fail (atol 1e-15 on the same logits) is
not flagged, nor is any record with ordinary outputs; the validator refuses a flag its tolerances contradict."""
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile, write_json

FACTORY = f"{REPO / 'tests' / 'models' / 'tiny_logits.py'}:efficientnet_b0"


def profile(name, atol):
    return {"name": name, "exporter": "torchscript", "module": FACTORY,
            "inputs": [{"name": "image", "shape": ["batch", 3, 64, 64], "dtype": "float32"}],
            "dims": {"batch": [2, 1]}, "outputs": ["logits"], "opset": 18,
            "tolerances": {"rtol": 0.0001, "atol": atol}}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    profiles = [profile("efficientnet-b0-atol-1e-5", 1e-5), profile("efficientnet-b0-atol-1e-15", 1e-15)]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", timeout=900)
    return done, records_by_profile(json.loads((out / "report.json").read_text())), out


def test_efficientnet_b0s_tolerance_that_cannot_fail_is_flagged_in_the_record_and_the_summary(tiny_run):
    done, records, _ = tiny_run
    record = records["efficientnet-b0-atol-1e-5"]
    assert (record["status"], record["level"]) == ("passed", "executed")
    [flag] = record["stages"]["parity"]["detail"]["vacuous_tolerance"]
    assert flag["output"] == "logits" and 0 < flag["max_abs_reference"] < 1e-9
    assert flag["allowed"] == 1e-5 + 1e-4 * flag["max_abs_reference"]
    line = next(l for l in done.stdout.splitlines() if l.startswith("efficientnet-b0-atol-1e-5:"))
    assert line.endswith("; the tolerance cannot fail for logits (an all-zero output would pass)"), line


def test_a_tolerance_that_can_fail_is_not_flagged(tiny_run):
    done, records, _ = tiny_run
    assert "vacuous_tolerance" not in records["efficientnet-b0-atol-1e-15"]["stages"]["parity"]["detail"]
    line = next(l for l in done.stdout.splitlines() if l.startswith("efficientnet-b0-atol-1e-15:"))
    assert "cannot fail" not in line


@pytest.mark.parametrize("change,problem", [
    (lambda f: f.update(allowed=1e-3), "not atol + rtol * max_abs_reference"),
    (lambda f: f.update(max_abs_reference=1.0, allowed=1e-5 + 1e-4), "an all-zero output would fail"),
])
def test_the_validator_refuses_a_flag_its_tolerances_contradict(tiny_run, tmp_path, change, problem):
    record = json.loads(json.dumps(tiny_run[1]["efficientnet-b0-atol-1e-5"]))
    change(record["stages"]["parity"]["detail"]["vacuous_tolerance"][0])
    write_json(tmp_path / "r.json", record)
    done = run_cli("validate", tmp_path / "r.json")
    assert done.returncode == 1 and problem in done.stdout + done.stderr, done.stdout + done.stderr
