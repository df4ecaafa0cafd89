"""A module profile's bad input: what the profile itself shows is refused before anything runs (exit 2,
nothing written); what only running the factory shows is that profile's own failure, and the other
profiles run. Through the faulty-exporter fake, an export that changes a BatchNorm buffer is
state-changed."""
import json

import pytest

from conftest import REPO, fault_env, run_cli
from module_support import WORKER_MODELS, conv_bn_profile, write_profiles
from support import records_by_profile

UNIMPORTABLE = REPO / "tests" / "models" / "unimportable.py"


def refused(tmp_path, profile, needle):
    profiles = write_profiles(tmp_path / "p.json", [profile])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert needle in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_module_file_that_does_not_exist_is_refused_before_anything_runs(tmp_path):
    refused(tmp_path, conv_bn_profile(module=str(tmp_path / "absent.py") + ":model"), "absent.py does not exist")


@pytest.mark.parametrize("change,needle", [
    ({"inputs": [{"name": "image", "shape": ["batch", 3], "dtype": "complex64"}]}, 'unknown dtype "complex64" (float32'),
    ({"dims": {"batch": []}}, "dims.batch: needs at least one value"),
    ({"dims": {"batch": [2], "time": [4]}}, "dims.time: no input uses this dimension"),
    ({"dims": {}}, 'the dimension "batch" has no values'),
    ({"inputs": [{"name": "an image", "shape": ["batch", 3, 8, 8]}]}, "is not a plain name"),
    ({"dims": {"batch": list(range(1, 80))}}, "more than the limit of 64"),
    ({"inputs": [{"name": "ids", "shape": ["batch", 4], "dtype": "int64"}]}, 'needs "range"'),
    ({"inputs": [{"name": "image", "shape": ["batch", 65536, 65536]}]}, "MiB"),
    ({"module": "no_colon_here"}, "is not FILE.py:FACTORY or package.module:FACTORY"),
])
def test_a_profile_that_breaks_a_rule_is_refused_naming_it(tmp_path, change, needle):
    refused(tmp_path, conv_bn_profile(**change), needle)


def run_profiles(tmp_path, profiles, env=None):
    path = write_profiles(tmp_path / "p.json", profiles)
    done = run_cli("run", "--profile-file", path, "--output", tmp_path / "report.json", env=env)
    return done, records_by_profile(json.loads((tmp_path / "report.json").read_text()))


def test_what_only_the_factory_shows_fails_that_profile_and_the_others_run(tmp_path):
    done, records = run_profiles(tmp_path, [
        conv_bn_profile(name="raises", module=f"{WORKER_MODELS}:raises"),
        conv_bn_profile(name="not-a-module", module=f"{WORKER_MODELS}:not_a_module"),
        conv_bn_profile(name="dies", module=f"{WORKER_MODELS}:exits"),
        conv_bn_profile(name="unimportable", module=f"{UNIMPORTABLE}:model"),
        conv_bn_profile(name="good"),
    ])
    assert done.returncode == 11, done.stderr  # the first failing profile's class
    assert records["good"]["status"] == "passed"
    assert "this factory fails on purpose" in json.dumps(records["raises"]["stages"]["export"]["detail"])
    assert "not a torch.nn.Module" in json.dumps(records["not-a-module"]["stages"]["export"]["detail"])
    assert records["dies"]["failure"] == "export-error"
    assert "died" in json.dumps(records["dies"]["stages"]["export"]["detail"])
    unimportable = records["unimportable"]
    assert (unimportable["failure"], unimportable["stages"]["export"]["status"]) == ("missing-dependency", "not_run")
    assert "nnx_no_such_package" in json.dumps(unimportable["stages"]["dependencies"]["detail"])


def test_an_export_that_changes_a_batchnorm_buffer_is_state_changed(tmp_path):
    done, records = run_profiles(tmp_path, [conv_bn_profile()], env=fault_env("mutate-buffer"))
    assert done.returncode == 12, done.stderr
    record = records["conv-bn"]
    assert record["failure"] == "state-changed"
    assert record["model_state"]["parameters"] is False


def test_a_module_record_gets_its_identity_and_the_inputs_it_was_given(tmp_path):
    done, records = run_profiles(tmp_path, [conv_bn_profile()])
    assert done.returncode == 0, done.stderr
    record = records["conv-bn"]
    module = record["module"]
    assert module["class"].endswith("ConvBn") and len(module["source_sha256"]) == 64
    assert len(module["state_sha256"]) == 64
    assert record["inputs"] == [{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32", "range": None}]
    assert [c["name"] for c in record["input_cases"]] == [
        "batch-2", "batch-1", "batch-3", "image-axis1-4", "image-axis2-9", "image-axis3-9"]


def test_an_input_the_exporter_drops_is_not_fed_and_the_record_says_so(tmp_path):
    profile = {"name": "ignores", "exporter": "torchscript", "module": f"{WORKER_MODELS}:ignores_an_input",
               "inputs": [{"name": "x", "shape": ["batch", 4]}, {"name": "unused", "shape": ["batch", 3]}],
               "dims": {"batch": [2, 1]}}
    done, records = run_profiles(tmp_path, [profile])
    record = records["ignores"]
    graph_inputs = [i["name"] for i in record["stages"]["export"]["detail"]["graph"]["inputs"]]
    assert graph_inputs == ["x"]
    assert record["stages"]["parity"]["detail"]["unused_inputs"] == ["unused"]
    assert [c["outcome"] for c in record["input_cases"] if c["expect"] == "match"] == ["match", "match"]
    # a wrong size of the dropped input cannot be refused: the runtime never sees it
    cases = {c["name"]: c for c in record["input_cases"]}
    assert cases["unused-axis1-4"]["outcome"] == "accepted" and record["failure"] == "input-contract"
    assert done.returncode == 17


def test_a_factory_that_hangs_is_its_profiles_export_error_and_the_next_profile_runs(tmp_path):
    done, records = run_profiles(tmp_path, [conv_bn_profile(name="hangs", module=f"{WORKER_MODELS}:sleeps"),
                                            conv_bn_profile(name="after")],
                                 env={"NNX_WORKER_TIMEOUT_SECONDS": "30"})
    assert records["hangs"]["failure"] == "export-error"
    assert "did not answer" in json.dumps(records["hangs"]["stages"]["export"]["detail"])
    assert records["after"]["status"] == "passed"
    assert done.returncode == 11
