"""A tested profile's record under other settings than the brief's (doc/record-format.md §11, kind "built-in";
issue "Every way it is run", "Records for each cell"): `execute`, `run` and a runtime matrix's cells of other
settings write the same evidence as an nnx.model-conformance/1 record whose model is {kind: "built-in",
config, dtype}, its input and output named, each case's dims, inputs and outputs where v1's has `shape`, and
the settings in full; it validates strictly, verifies, and runs again as it says without Python. With the
brief's settings the records stay nnx.export-conformance/1, byte for byte."""
import json

import pytest

from conftest import run_cli

RELEASE = "1.30.0"
SETTINGS = ("--optimization-level", "ORT_DISABLE_ALL", "--intra-op-threads", "2")


@pytest.fixture(scope="module")
def executed(both_profiles, tmp_path_factory):
    _, document, artifacts = both_profiles
    folder = tmp_path_factory.mktemp("built-in")
    (folder / "report.json").write_text(json.dumps(document))
    done = run_cli("execute", folder / "report.json", artifacts, "--output", folder / "other.json", *SETTINGS)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder, artifacts, document, json.loads((folder / "other.json").read_text())


def test_a_tested_profile_executed_under_other_settings_writes_the_built_in_kind_of_the_successor_format(executed):
    _, _, brief, other = executed
    for before, record in zip(brief["profiles"], other["profiles"]):
        assert record["format"] == "nnx.model-conformance/1" and record["status"] == "passed"
        assert record["model"] == {"kind": "built-in", "config": before["config"], "dtype": "float32"}
        assert "config" not in record and "dtype" not in record
        assert record["inputs"] == [{"name": "features", "shape": ["batch", 4], "dtype": "float32", "range": None}]
        assert record["dims"] == {"batch": [2, 1, 3, 7]} and record["outputs"] == ["logits"]
        first, refused = record["input_cases"][0], record["input_cases"][-1]
        assert first["dims"] == {"batch": 1} and first["seed"] == 1001
        assert first["inputs"] == [{"name": "features", "dtype": "float32", "shape": [1, 4]}]
        assert first["outputs"] == [{"name": "logits", "dtype": "float32", "shape": [1, 2]}]
        assert refused["name"] == "width-5" and refused["outputs"] is None and refused["outcome"] == "rejected"
        assert record["runtime"]["session"] == {"graph_optimization_level": "ORT_DISABLE_ALL",
                                                "inter_op_num_threads": 1, "intra_op_num_threads": 2}
        assert record["stages"]["parity"]["detail"]["deterministic"]["identical"] is True
        assert "host" in record["versions"]
        assert [c["name"] for c in record["input_cases"]] == [c["name"] for c in before["input_cases"]]


def test_the_built_in_record_validates_verifies_and_runs_again_as_it_says_without_python(executed):
    folder, artifacts, _, _ = executed
    done = run_cli("validate", folder / "other.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert run_cli("verify", folder / "other.json", artifacts).returncode == 0
    again = run_cli("execute", folder / "other.json", artifacts, "--output", folder / "again.json",
                    env={"NNX_PYTHON": "/bin/false"})
    assert again.returncode == 0, again.stdout + again.stderr
    for record in json.loads((folder / "again.json").read_text())["profiles"]:
        assert record["format"] == "nnx.model-conformance/1"
        assert record["runtime"]["session"]["intra_op_num_threads"] == 2  # its own settings, kept


def test_the_brief_settings_still_write_the_briefs_format(executed):
    folder, artifacts, _, _ = executed
    done = run_cli("execute", folder / "report.json", artifacts, "--output", folder / "brief.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert {r["format"] for r in json.loads((folder / "brief.json").read_text())["profiles"]} == {
        "nnx.export-conformance/1"}


def edits():
    def inputs(r): r["inputs"][0]["shape"][1] = 5
    def case_batch(r): r["input_cases"][2]["inputs"][0]["shape"][0] = 9
    def digest(r): r["model"]["config"]["weights_sha256"] = "00"
    def threads(r): r["runtime"]["session"]["intra_op_num_threads"] = 0
    def extra(r): r["model"]["net"] = "feed_fwd"
    def hidden(r): r["model"]["config"]["hidden_dims"] = [9]
    def provider(r): r["runtime"]["provider"] = ""
    def outputs(r): r["input_cases"][0]["outputs"] = None
    return [(inputs, "inputs: "), (case_batch, "input_cases[2]: its dims, inputs and outputs are not those"),
            (digest, "model.config.weights_sha256: \"00\" is not 64 lowercase hex digits"),
            (threads, "runtime.session.intra_op_num_threads: must be a whole number from 1 to 256"),
            (extra, "model.net: unknown key"),
            (hidden, "settings differ from the tested profile \"feedfwd-fp32-torchscript\""),
            (provider, "runtime.provider: must be the name of an execution provider"),
            (outputs, "input_cases[0]: its dims, inputs and outputs are not those")]


@pytest.mark.parametrize("edit, problem", edits(), ids=lambda v: getattr(v, "__name__", "problem"))
def test_an_edited_built_in_record_is_refused_naming_the_place(executed, tmp_path, edit, problem):
    _, _, _, other = executed
    record = json.loads(json.dumps(other["profiles"][0]))
    edit(record)
    (tmp_path / "edited.json").write_text(json.dumps(record))
    done = run_cli("validate", tmp_path / "edited.json")
    assert done.returncode == 1 and problem in done.stderr, done.stderr


def test_a_run_of_the_tested_profiles_under_other_settings_writes_built_in_records(tmp_path):
    done = run_cli("run", "--output", tmp_path / "t.json", "--intra-op-threads", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    records = json.loads((tmp_path / "t.json").read_text())["profiles"]
    assert [(r["profile"], r["format"], r["model"]["kind"]) for r in records] == [
        ("feedfwd-fp32-torchscript", "nnx.model-conformance/1", "built-in"),
        ("feedfwd-fp32-dynamo", "nnx.model-conformance/1", "built-in")]
    assert all(r["runtime"]["session"]["intra_op_num_threads"] == 2 for r in records)
    assert run_cli("validate", tmp_path / "t.json").returncode == 0


def test_a_matrix_of_the_tested_profiles_over_axes_writes_v1_records_in_the_brief_cell_and_built_in_records_elsewhere(
        both_profiles, tmp_path):
    _, document, root = both_profiles
    (tmp_path / "report.json").write_text(json.dumps(document))
    done = run_cli("matrix", tmp_path / "report.json", root, "--output", tmp_path / "m.json", "--jobs", "2",
                   "--onnxruntime-version", RELEASE, "--intra-op-threads", "1", "--intra-op-threads", "2",
                   "--optimization-level", "ORT_DISABLE_ALL", "--optimization-level", "ORT_ENABLE_ALL")
    assert done.returncode == 0, done.stdout + done.stderr
    matrix = json.loads((tmp_path / "m.json").read_text())
    formats = {r.get("cell", r["version"]): {rec["format"] for rec in r["records"]} for r in matrix["runtimes"]}
    assert formats == {RELEASE: {"nnx.export-conformance/1"},
                       f"{RELEASE} (ORT_DISABLE_ALL)": {"nnx.model-conformance/1"},
                       f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)": {"nnx.model-conformance/1"},
                       f"{RELEASE} (2 threads)": {"nnx.model-conformance/1"}}
    plain = run_cli("matrix", tmp_path / "report.json", root, "--output", tmp_path / "plain.json",
                    "--onnxruntime-version", RELEASE)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    brief_cell = next(r for r in matrix["runtimes"] if "settings" not in r)
    assert brief_cell["records"] == json.loads((tmp_path / "plain.json").read_text())["runtimes"][0]["records"]
    axes = {(a["version"], a["profile"]): a for a in matrix["drift"]["axes"]}
    threads = axes[(f"{RELEASE} (2 threads)", "feedfwd-fp32-torchscript")]
    assert threads["cases_compared"] == 4 and threads["max_ulps"] == 0 and threads["within_tolerance"] is True
    assert run_cli("validate", tmp_path / "m.json").returncode == 0
