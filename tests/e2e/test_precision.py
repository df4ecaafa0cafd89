"""A module profile's precision (issue 41; doc/profile-files.md "precision", doc/record-format.md §10
"Precision"): a real CNN (torchvision's resnet18, random weights) exported by the real dynamo exporter in
float16 by torch and in float16 by onnxconverter-common reaches `executed` and passes under the documented
float16 tolerance while its record says every case is beyond the profile's float32 one; bfloat16 gets its
true outcome (ONNX's checker refuses a bfloat16 Conv at opset 18); `validate` accepts the records and refuses edited ones; a
misspelt precision is a usage error naming the valid ones; a float32 profile's record has no precision key."""
import copy
import json

import pytest

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile, write_json

FACTORY = f"{REPO / 'tests' / 'models' / 'zoo.py'}:resnet18"
FLOAT16 = {"rtol": 0.015625, "atol": 0.015625}  # 16 float16 epsilons (src/base/precision.cc)
PRECISIONS = ("float16-torch", "float16-graph", "bfloat16")


def resnet_profile(name: str, precision=None) -> dict:
    profile = {"name": name, "exporter": "dynamo", "module": FACTORY,
               "inputs": [{"name": "image", "shape": ["batch", 3, 32, 32], "dtype": "float32"}],
               "dims": {"batch": [2]}, "outputs": ["logits"]}
    if precision is not None:
        profile["precision"] = precision
    return profile


@pytest.fixture(scope="module")
def precision_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("precision")
    profiles = [resnet_profile(f"resnet18-{p}", p) for p in PRECISIONS] + [resnet_profile("resnet18-float32")]
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", profiles),
                   "--output", out / "report.json", "--quiet", timeout=1800)
    return out, done, records_by_profile(json.loads((out / "report.json").read_text()))


@pytest.mark.parametrize("precision", ["float16-torch", "float16-graph"])
def test_float16_passes_its_own_tolerance_and_the_record_says_it_fails_float32s(precision_run, precision):
    _, done, records = precision_run
    record = records[f"resnet18-{precision}"]
    assert (record["status"], record["level"], record["failure"]) == ("passed", "executed", None), done.stdout
    stated = record["tolerances"]["precision"]
    assert (stated["name"], stated["rtol"], stated["atol"]) == (precision, FLOAT16["rtol"], FLOAT16["atol"])
    assert "2^-10" in stated["why"]
    assert (record["tolerances"]["rtol"], record["tolerances"]["atol"]) == (1e-4, 1e-5)  # the profile's own
    verdict = record["stages"]["parity"]["detail"]["precision"]
    matched = [c["name"] for c in record["input_cases"] if c["outcome"] == "match"]
    assert matched and verdict == {"name": precision, "float32_tolerance": {"rtol": 1e-4, "atol": 1e-5},
                                   "cases_within_float32": [], "cases_beyond_float32": matched}
    for case in record["input_cases"]:
        if case["outcome"] == "match":
            assert 1e-5 < case["max_abs_error"] <= FLOAT16["atol"] + FLOAT16["rtol"] * 10, case
    assert record["stages"]["export"]["detail"]["precision"]["name"] == precision
    graph = record["stages"]["export"]["detail"]["graph"]
    assert [v["dtype"] for v in graph["inputs"] + graph["outputs"]] == ["float", "float"]  # the boundary kept


def test_float16_graph_names_the_locked_converter(precision_run):
    _, _, records = precision_run
    converter = records["resnet18-float16-graph"]["stages"]["export"]["detail"]["precision"]["converter"]
    assert converter.startswith("onnxconverter-common 1.16.0 ") and "keep_io_types=True" in converter


def test_float16_graph_holds_float16_weights(precision_run):
    import onnx

    out, _, records = precision_run
    for precision in ("float16-torch", "float16-graph"):
        model = onnx.load(out / "report-artifacts" / records[f"resnet18-{precision}"]["artifacts"]["directory"] / "model.onnx")
        kinds = {init.data_type for init in model.graph.initializer if len(init.dims) == 4}
        assert kinds == {onnx.TensorProto.FLOAT16}, (precision, kinds)


def test_bfloat16_gets_its_true_outcome(precision_run):
    _, _, records = precision_run
    record = records["resnet18-bfloat16"]
    assert record["tolerances"]["precision"]["rtol"] == 0.125
    assert record["stages"]["export"]["status"] == "passed", record["stages"]["export"]
    # ONNX's Conv takes no bfloat16 before opset 22: the checker refuses the opset-18 graph, the true outcome.
    assert (record["status"], record["failure"], record["level"]) == ("failed", "checker-error", "none")
    error = record["stages"]["check"]["detail"]["error"]
    assert "Conv" in error and "tensor(bfloat16)" in error, error
    assert record["stages"]["parity"]["status"] == "not_run" and not record["stages"]["parity"]["detail"]


def test_a_float32_profile_writes_no_precision(precision_run):
    _, _, records = precision_run
    record = records["resnet18-float32"]
    assert set(record["tolerances"]) == {"rtol", "atol"}
    assert "precision" not in record["stages"]["parity"]["detail"]
    assert "precision" not in record["stages"]["export"]["detail"]
    assert (record["status"], record["level"]) == ("passed", "executed")


def test_validate_accepts_the_records(precision_run):
    out, _, _ = precision_run
    done = run_cli("validate", out / "report.json")
    assert done.returncode == 0, done.stdout + done.stderr


EDITS = [
    ("wrong tolerance", lambda r: r["tolerances"]["precision"].update(rtol=0.001), "rtol and atol must be float16-torch's"),
    ("unknown name", lambda r: r["tolerances"]["precision"].update(name="float8"), "tolerances.precision.name: must be one of"),
    ("float32 named", lambda r: r["tolerances"]["precision"].update(name="float32"), "float32 leaves the key out"),
    ("no case", lambda r: r["stages"]["parity"]["detail"]["precision"]["cases_beyond_float32"].append("batch-9"),
     "must name a compared case"),
    ("case dropped", lambda r: r["stages"]["parity"]["detail"]["precision"].update(cases_beyond_float32=[]),
     "names neither within nor beyond float32 the compared case"),
    ("float32 tolerance", lambda r: r["stages"]["parity"]["detail"]["precision"]["float32_tolerance"].update(atol=1.0),
     "must be the record's tolerances' rtol and atol"),
    ("verdict dropped", lambda r: r["stages"]["parity"]["detail"].pop("precision"), "stages.parity.detail.precision: missing"),
    ("precision dropped", lambda r: r["tolerances"].pop("precision"), "only a record whose tolerances name a precision"),
]


@pytest.mark.parametrize("what,edit,problem", EDITS, ids=[e[0] for e in EDITS])
def test_validate_refuses_an_edited_precision(precision_run, tmp_path, what, edit, problem):
    out, _, records = precision_run
    record = copy.deepcopy(records["resnet18-float16-torch"])
    edit(record)
    done = run_cli("validate", write_json(tmp_path / "record.json", record))
    assert done.returncode != 0 and problem in done.stdout + done.stderr, (what, done.stdout + done.stderr)


def test_a_misspelt_precision_is_a_usage_error_naming_the_valid_ones(tmp_path):
    path = write_profiles(tmp_path / "p.json", [resnet_profile("typo", "float16-tourch")])
    done = run_cli("run", "--profile-file", path, "--output", tmp_path / "r.json")
    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stdout + done.stderr
    assert 'profiles[0].precision: unknown precision "float16-tourch"' in message
    assert "float32, float16-torch, float16-graph, bfloat16" in message and "float16-torch" in message
