"""A property (issue 38, "Nothing lost"): whatever the profiles and whatever fails, at whichever stage, a run
ends in a written, valid report with one record per profile, and `execute` of it (its stored tensors made
non-finite) ends in one too, every record whose check did not pass kept as it was.

Each seed draws a few module profiles of tests/models/ (random dims, outputs and tolerances; some whose
factory raises, dies or does not import, or whose exporter cannot export), a feed-forward profile, one fault
of tests/fakes/faults.py on one of them (only where nothing real causes it: the exporter raising, a changed
parameter or buffer, a crashed or garbled worker, a graph the checker refuses or the runtime fails in, shifted
or NaN outputs, a corrupted initializer) and sometimes a file-size limit that a profile's stored tensors
outgrow (EFBIG, as a full disk). One warm run per seed: a fixed number of seeds, within 60 s on 2 cores. A
failing seed is named in the test id and in every assertion.
"""
import json
import random

import pytest

from conftest import FAULTY_WORKER, REPO
from module_support import WORKER_MODELS, rewrite_stored_tensor, write_profiles, zoo_profiles
from support import run_cli_in

# Fixed, chosen among the first 40 for what they draw together: batches given twice and an unimportable
# module (5), broken factories and a garbled worker (7), the file limit with NaN outputs (19), the file limit
# with a changed buffer (22), a graph the checker refuses (33); broken outputs and tolerances in most.
SEEDS = (5, 7, 19, 22, 33)
UNIMPORTABLE = REPO / "tests" / "models" / "unimportable.py"
# The zoo's small models (the torchvision ones cost seconds each), eigh whose export fails.
ZOO = [p for p in zoo_profiles() if p["name"].endswith("-torchscript") and
       p["name"].split("-torchscript")[0] in ("gru", "two-in-two-out", "shape-branch", "batch-baked",
                                              "embedding-bag", "eigh")]
CONV_BN = {"module": f"{WORKER_MODELS}:conv_bn", "inputs": [{"name": "image", "shape": ["batch", 3, 8, 8]}]}
BROKEN_FACTORIES = [f"{WORKER_MODELS}:raises", f"{WORKER_MODELS}:not_a_module", f"{WORKER_MODELS}:exits",
                    f"{UNIMPORTABLE}:model"]
MODULE_FAULTS = ("exporter-raises", "mutate-parameter", "mutate-then-raise", "mutate-buffer")
FEED_FORWARD_FAULTS = ("exporter-raises", "mutate-parameter", "mutate-then-raise", "checker-refuses",
                       "shift-outputs", "nonfinite-outputs", "runtime-fails", "corrupt-initializer", "crash",
                       "garbage")
TOLERANCES = (None, {"rtol": 0, "atol": 0}, {"rtol": 1e-2, "atol": 1e-3}, {"rtol": 1.2e-38, "atol": 1.2e-38})
FILE_LIMIT = 256 << 10  # a case of the big profile's stored image is 288 KiB, the report well below
EXIT_OF_FAILURE = {None: 0, "missing-dependency": 10, "export-error": 11, "state-changed": 12, "checker-error": 13,
                   "load-error": 14, "runtime-error": 15, "mismatch": 16, "input-contract": 17}


def random_module_profile(rng, index):
    base = dict(rng.choice(ZOO + [dict(CONV_BN, name="conv-bn")] * 2))
    if rng.random() < 0.2:
        base = dict(CONV_BN, module=rng.choice(BROKEN_FACTORIES))
    profile = {key: base[key] for key in ("module", "inputs") if key in base}
    profile.update(name=f"p{index}", exporter="torchscript",
                   dims={"batch": rng.sample(range(1, 5), rng.randint(1, 3))})
    outputs = rng.choice([None, "given", "wrong-count"])
    if outputs == "given" and base.get("outputs"):
        profile["outputs"] = base["outputs"]
    elif outputs == "wrong-count":
        profile["outputs"] = [f"out{k}" for k in range(rng.randint(1, 3))]
    tolerances = rng.choice(TOLERANCES)
    if tolerances:
        profile["tolerances"] = tolerances
    return profile


def draw(seed):
    """The profiles, the fault environment and the file-size limit of one seed."""
    rng = random.Random(seed)
    profiles = [random_module_profile(rng, i) for i in range(4)]
    profiles.append({"name": "ff", "exporter": "torchscript", "batches": [rng.randint(1, 4) for _ in range(2)]})
    limit = None
    if rng.random() < 0.5:  # a profile whose stored tensors outgrow the file limit
        profiles.append(dict(CONV_BN, name="big", exporter="torchscript",
                             inputs=[{"name": "image", "shape": ["batch", 3, 64, 64]}], dims={"batch": [1, 6]}))
        limit = FILE_LIMIT
    env = {}
    target = rng.choice(profiles)
    fault = rng.choice((None,) + (FEED_FORWARD_FAULTS if "batches" in target else MODULE_FAULTS))
    if fault:
        env = {"NNX_WORKER_SCRIPT": str(FAULTY_WORKER), "NNX_TEST_FAULT": fault,
               "NNX_TEST_FAULT_PROFILE": target["name"]}
    return profiles, env, limit, rng


def assert_written_and_valid(report_path, names, done, what):
    assert report_path.exists(), f"{what}: no report (exit {done.returncode}): {done.stderr}"
    report = json.loads(report_path.read_text())
    assert [r["profile"] for r in report["profiles"]] == names, what
    validated = run_cli_in(report_path.parent, ["validate", report_path])
    assert validated.returncode == 0, f"{what}: {validated.stdout}{validated.stderr}"
    first = next((r["failure"] for r in report["profiles"] if r["failure"]), None)
    assert done.returncode == EXIT_OF_FAILURE[first], f"{what}: exit {done.returncode}, first failure {first}"
    return report


def make_stored_values_nonfinite(records, report_path, root, rng):
    """One executed module record's stored oracle, reference or input gets an Inf or NaN (hashes kept)."""
    executed = [r for r in records if r.get("format") == "nnx.module-conformance/1" and
                r["level"] == "executed"]
    if not executed:
        return None
    record = rng.choice(executed)
    case = record["input_cases"][0]
    choices = [case["inputs"][0]["file"], case["outputs"][0]["file"]]
    if case["outputs"][0]["oracle_file"]:
        choices.append(case["outputs"][0]["oracle_file"])
    relative = rng.choice(choices)
    value = rng.choice([float("inf"), float("-inf"), float("nan")])
    if relative.endswith("input_0.pb") and record["inputs"][0]["dtype"].startswith("int"):
        return None  # an integer input holds no non-finite value
    rewrite_stored_tensor(report_path, root, record["profile"], relative,
                          lambda values: values.reshape(-1).__setitem__(0, value))
    return f"{record['profile']} {relative} {value}"


@pytest.mark.parametrize("seed", SEEDS)
def test_every_random_profile_and_failure_ends_in_a_written_valid_report(tmp_path, seed):
    profiles, env, limit, rng = draw(seed)
    what = f"seed {seed}: profiles {json.dumps(profiles)}, env {env}, file limit {limit}"
    path = write_profiles(tmp_path / "p.json", profiles)
    done = run_cli_in(tmp_path, ["run", "--quiet", "--profile-file", path, "--output", "report.json"], env, limit)
    names = [p["name"] for p in profiles]
    report = assert_written_and_valid(tmp_path / "report.json", names, done, what)

    # execute takes the whole report: the records whose check did not pass (no artifacts) are kept as they are
    changed = make_stored_values_nonfinite(report["profiles"], tmp_path / "report.json",
                                           tmp_path / "report-artifacts", rng)
    report = json.loads((tmp_path / "report.json").read_text())
    done = run_cli_in(tmp_path, ["execute", "report.json", "report-artifacts", "--output", "again.json"])
    again = assert_written_and_valid(tmp_path / "again.json", names, done, f"{what}; execute after {changed}")
    for before, after in zip(report["profiles"], again["profiles"]):
        if before["stages"]["check"]["status"] != "passed":
            assert after == before, f"{what}; execute after {changed}: {before['profile']} not kept as it was"
