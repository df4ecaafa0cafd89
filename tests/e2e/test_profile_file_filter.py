"""`run --profile-file F --profile NAME` (doc/cli.md, "Custom profiles"): only the named profiles of F run, in
the order given, each once, with the real exporter; a name F lacks is a usage error (exit 2) before anything
runs, naming the nearest of F's names and listing them all."""
import json

from conftest import run_cli
from support import records_by_profile

SMALL = {"batches": [1, 2], "model": {"input_dim": 3, "hidden_dims": [5], "output_dim": 2}}
FILE_PROFILES = [{"name": name, "exporter": "torchscript", **SMALL} for name in ("first-ts", "second-ts", "third-ts")]


def profile_file(tmp_path):
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps(FILE_PROFILES))
    return path


def test_profile_names_pick_those_profiles_of_the_file_in_the_order_given(tmp_path):
    done = run_cli("run", "--profile-file", profile_file(tmp_path), "--profile", "third-ts", "--profile", "first-ts",
                   "--profile", "third-ts", "--output", tmp_path / "out" / "report.json", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [r["profile"] for r in report["profiles"]] == ["third-ts", "first-ts"]
    assert set(records_by_profile(report)) == {"third-ts", "first-ts"}
    assert not (tmp_path / "out" / "report-artifacts" / "second-ts").exists()


def test_a_name_the_file_lacks_is_refused_listing_its_names_before_anything_runs(tmp_path):
    done = run_cli("run", "--profile-file", profile_file(tmp_path), "--profile", "secnod-ts",
                   "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f'unknown profile "secnod-ts" in {tmp_path / "profiles.json"}; did you mean "second-ts"? ' \
           "(its profiles: first-ts, second-ts, third-ts)" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_tested_name_with_a_profile_file_is_looked_for_in_the_file(tmp_path):
    done = run_cli("run", "--profile-file", profile_file(tmp_path), "--profile", "feedfwd-fp32-dynamo",
                   "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'unknown profile "feedfwd-fp32-dynamo" in' in done.stderr, done.stderr
