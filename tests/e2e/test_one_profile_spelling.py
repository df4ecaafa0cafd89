"""One profile-file spelling for every kind (doc/profile-files.md, "One spelling for every kind"): the opset
and tolerances are `opset_version`, `rtol` and `atol` in a profile of the built-in network and in a module
profile alike; `opset` and `tolerances {rtol, atol}` are read as their alias in both; a setting given in both
spellings is a usage error (exit 2) naming both keys, before anything is written; each kind keeps its
default opset (17, 18). The tested profile spelled with the alias is the tested profile: its record is the
golden one."""
import json

import pytest

from conftest import BUILD, PINNED_SOURCE_REVISION, REPO, run_cli
from golden_records import golden_path, normalised
import sys

sys.path.insert(0, str(BUILD / "python"))
import nnx.export_conformance as ec  # noqa: E402

MODULE = {"name": "mod", "exporter": "torchscript", "module": f"{REPO / 'tests' / 'models' / 'zoo.py'}:two_in_two_out",
          "inputs": [{"name": "a", "shape": ["batch", 6]}, {"name": "b", "shape": ["batch", 4]}],
          "dims": {"batch": [2, 1]}}
FEEDFWD = {"name": "ff", "exporter": "torchscript", "batches": [1, 2]}


def load(tmp_path, entries):
    (tmp_path / "profiles.json").write_text(json.dumps(entries))
    return ec.load_profiles(tmp_path / "profiles.json")


def test_both_spellings_read_the_same_settings_in_both_kinds_and_the_defaults_stay_per_kind(tmp_path):
    canonical = {"opset_version": 19, "rtol": 1e-3, "atol": 1e-6}
    alias = {"opset": 19, "tolerances": {"rtol": 1e-3, "atol": 1e-6}}
    ff_canonical, ff_alias, mod_canonical, mod_alias, ff_default, mod_default = load(tmp_path, [
        {**FEEDFWD, **canonical}, {**FEEDFWD, **alias, "name": "ff2"}, {**MODULE, **canonical},
        {**MODULE, **alias, "name": "mod2"}, {**FEEDFWD, "name": "ff3"}, {**MODULE, "name": "mod3"}])
    assert (ff_canonical.opset_version, ff_canonical.rtol, ff_canonical.atol) == (19, 1e-3, 1e-6)
    assert (ff_alias.opset_version, ff_alias.rtol, ff_alias.atol) == (19, 1e-3, 1e-6)
    assert (mod_canonical.opset, mod_canonical.rtol, mod_canonical.atol) == (19, 1e-3, 1e-6)
    assert (mod_alias.opset, mod_alias.rtol, mod_alias.atol) == (19, 1e-3, 1e-6)
    assert (ff_default.opset_version, mod_default.opset) == (17, 18)
    for written in (ff_canonical.to_json(), mod_alias.to_json()):   # both kinds write the one spelling
        assert {"opset_version", "rtol", "atol"} <= set(written) and not {"opset", "tolerances"} & set(written)
    assert ec.ModuleProfile.from_json({**MODULE, **alias}) == ec.ModuleProfile.from_json({**MODULE, **canonical})


@pytest.mark.parametrize("kind", [FEEDFWD, MODULE], ids=["feed-forward", "module"])
@pytest.mark.parametrize("both, keys", [({"opset_version": 17, "opset": 17}, ("opset_version", "opset")),
                                        ({"rtol": 1e-4, "tolerances": {"atol": 1e-5}}, ("rtol/atol", "tolerances"))])
def test_one_setting_in_both_spellings_is_a_usage_error_naming_both_keys(tmp_path, kind, both, keys):
    (tmp_path / "profiles.json").write_text(json.dumps([{**kind, **both}]))
    done = run_cli("run", "--profile-file", tmp_path / "profiles.json", "--output", tmp_path / "out" / "r.json",
                   "--quiet")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"profiles[0]: {keys[0]} and {keys[1]} are both given" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
    with pytest.raises(ec.UsageError) as raised:
        load(tmp_path, [{**kind, **both}])
    assert any(f"{keys[0]} and {keys[1]} are both given" in p for p in raised.value.problems), raised.value.problems
    if kind is MODULE:
        with pytest.raises(ec.UsageError, match=f"{keys[0]} and {keys[1]} are both given"):
            ec.ModuleProfile.from_json({**kind, **both})


def test_the_tested_profile_spelled_with_the_alias_writes_the_golden_record(tmp_path):
    alias = {"name": "feedfwd-fp32-torchscript", "exporter": "torchscript", "opset": 17,
             "tolerances": {"rtol": 1e-4, "atol": 1e-5}}
    (tmp_path / "profiles.json").write_text(json.dumps([alias]))
    done = run_cli("run", "--profile-file", tmp_path / "profiles.json", "--output", tmp_path / "r.json", "--quiet",
                   "--source-revision", PINNED_SOURCE_REVISION)
    assert done.returncode == 0, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "r.json").read_text())["profiles"]
    assert normalised(record) == golden_path("feedfwd-fp32-torchscript").read_text()
