"""Code written for the published original (thekaveh-nnx 0.4.1, doc/record-format.md §9) runs unchanged here.

The snippets below are written against the original's API: its `__all__`, `run_profiles(directory, names=None,
*, source_revision=None)` returning the report, the reporting functions over a report or a bare
`{"profiles": [...]}` mapping, `Profile` with tuples, `build_model(config=MODEL).net`, and the script's
`main(argv)`. They run on this build's package (<build>/python/nnx, the C++ core behind it, real exporters and
ONNX Runtime). tests/e2e/test_original_snippet.py runs one snippet under both this package and the original
itself. Nothing here skips.
"""
import copy
import hashlib
import importlib.util
import inspect
import json
import math
import sys

import pytest

from conftest import BUILD, REPO, require_runtime
from support import saved_text

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"
ORIGINAL_ALL = {
    "EXIT_CODES", "FAILURES", "FORMAT", "LEVELS", "MODEL", "PROFILES", "STAGES", "ConformanceError", "Profile",
    "build_model", "execute", "exit_code", "run_profile", "run_profiles", "save_report", "summary_lines",
    "validate_record", "verify_artifacts",
}


# --- 6. __all__ ---------------------------------------------------------------------------------------------


def test_all_holds_every_name_of_the_original():
    assert set(ec.__all__) >= ORIGINAL_ALL
    namespace: dict = {}
    exec("from nnx.export_conformance import *", namespace)  # what a star import gives code for the original
    assert ORIGINAL_ALL <= set(namespace)
    assert issubclass(ec.ConformanceError, ValueError)


def test_signatures_take_what_code_for_the_original_passes():
    def shape(function):
        return [(p.name, p.kind.name, p.default) for p in inspect.signature(function).parameters.values()]

    empty = inspect.Parameter.empty
    assert shape(ec.run_profiles) == [
        ("directory", "POSITIONAL_OR_KEYWORD", empty), ("names", "POSITIONAL_OR_KEYWORD", None),
        ("source_revision", "KEYWORD_ONLY", None), ("force", "KEYWORD_ONLY", False),
        ("onnxruntime", "KEYWORD_ONLY", None), ("jobs", "KEYWORD_ONLY", None),
        ("localize", "KEYWORD_ONLY", None),  # doc/localisation.md: keyword-only, None keeps the default
    ]
    assert shape(ec.run_profile)[:3] == [
        ("profile_or_name", "POSITIONAL_OR_KEYWORD", empty), ("directory", "POSITIONAL_OR_KEYWORD", empty),
        ("source_revision", "KEYWORD_ONLY", None),
    ]
    assert [p[0] for p in shape(ec.execute)][:2] == ["record", "directory"]
    assert [p[0] for p in shape(ec.verify_artifacts)] == ["record", "directory"]
    assert [p[0] for p in shape(ec.validate_record)] == ["record"]
    assert [p[0] for p in shape(ec.exit_code)] == ["report"]
    assert [p[0] for p in shape(ec.summary_lines)] == ["report"]
    assert shape(ec.save_report) == [  # sign_key: keyword-only, off by default (signed documents)
        ("report", "POSITIONAL_OR_KEYWORD", empty), ("path", "POSITIONAL_OR_KEYWORD", empty),
        ("sign_key", "KEYWORD_ONLY", None),
    ]
    assert shape(ec.build_model) == [("config", "POSITIONAL_OR_KEYWORD", ec.MODEL)]


# --- 1. run_profiles(directory, names=None, *, source_revision=None) -> report -------------------------------


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """`report = run_profiles(directory)` as code for the original writes it: (report, directory)."""
    require_runtime()
    directory = tmp_path_factory.mktemp("original-api") / "artifacts"
    report = ec.run_profiles(directory)
    return report, directory


def test_run_profiles_returns_the_report_of_every_tested_profile(ran):
    report, directory = ran
    assert sorted(report) == ["format", "profiles", "status"]
    assert report["format"] == ec.FORMAT == "nnx.export-conformance/1" and report["status"] == "passed"
    assert [r["profile"] for r in report["profiles"]] == [TORCHSCRIPT, DYNAMO]  # None: every tested profile
    for record in report["profiles"]:
        assert record["status"] == "passed" and record["level"] == "executed"
        ec.validate_record(record)
        assert ec.verify_artifacts(record, directory) is None
    assert ec.exit_code(report) == 0


def test_run_profiles_deduplicates_names_in_order_and_takes_keywords(tmp_path):
    require_runtime()
    report = ec.run_profiles(directory=tmp_path / "a", names=(TORCHSCRIPT, TORCHSCRIPT), source_revision="c0ffee")
    assert [r["profile"] for r in report["profiles"]] == [TORCHSCRIPT] and report["status"] == "passed"
    assert report["profiles"][0]["source"]["origin"] == "given"
    assert report["profiles"][0]["source"]["revision"] == "c0ffee"
    empty = ec.run_profiles(tmp_path / "b", [])
    assert empty == {"format": ec.FORMAT, "status": "failed", "profiles": []}  # as the core's report writer says
    with pytest.raises(TypeError):
        ec.run_profiles(tmp_path / "c", [TORCHSCRIPT], "rev")  # source_revision is keyword-only, as in the original
    with pytest.raises(TypeError, match="directory"):
        ec.run_profiles(None, tmp_path / "d")  # the earlier run_profiles(profiles, root) order is refused
    with pytest.raises(TypeError, match="directory"):
        ec.run_profiles([TORCHSCRIPT], tmp_path / "d")
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_run_profiles_still_refuses_before_anything_is_written(tmp_path):
    with pytest.raises(ec.ConformanceError, match="reuses a tested profile's name"):
        ec.run_profiles(tmp_path / "a", [TORCHSCRIPT, {"name": DYNAMO, "exporter": "torchscript"}])
    with pytest.raises(ec.UsageError, match="unknown profile"):
        ec.run_profiles(tmp_path / "b", [TORCHSCRIPT, "feedfwd-fp64"])
    (tmp_path / "c" / TORCHSCRIPT).mkdir(parents=True)
    (tmp_path / "c" / TORCHSCRIPT / "old.onnx").write_text("kept")
    with pytest.raises(ec.FolderInUse):
        ec.run_profiles(tmp_path / "c", [TORCHSCRIPT])
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert [p.name for p in (tmp_path / "c" / TORCHSCRIPT).iterdir()] == ["old.onnx"]


# --- 2. exit_code / summary_lines / save_report over a report, a bare mapping or records ----------------------


def test_reporting_takes_a_report_a_bare_profiles_mapping_or_records(ran, tmp_path):
    report, _ = ran
    records = report["profiles"]
    shapes = [report, {"profiles": records}, records, tuple(records), (r for r in records)]
    assert [ec.exit_code(shape) for shape in shapes] == [0] * 5
    lines = ec.summary_lines(report)
    assert len(lines) == 2 and lines[0].startswith(f"{TORCHSCRIPT}: passed; level=executed;")
    assert all(ec.summary_lines(shape) == lines for shape in [{"profiles": records}, records, tuple(records)])
    assert ec.exit_code({"profiles": []}) == 1 and ec.summary_lines({"profiles": []}) == []
    failed = copy.deepcopy(records[1])
    failed["status"], failed["failure"] = "failed", "input-contract"
    assert ec.exit_code({"profiles": [records[0], failed]}) == ec.EXIT_CODES["input-contract"] == 17
    assert ec.summary_lines({"profiles": [failed]})[0].startswith(f"{DYNAMO}: failed (input-contract);")
    ec.save_report({"profiles": records}, tmp_path / "bare.json")  # the file is the core's whole report
    ec.save_report(report, tmp_path / "full.json")
    text = (tmp_path / "full.json").read_text()
    assert (tmp_path / "bare.json").read_text() == text == saved_text(report)
    with pytest.raises(ec.ConformanceError, match="contradicts"):
        ec.exit_code({**report, "status": "failed"})  # a status that is given is still checked
    with pytest.raises(ec.ConformanceError, match="unknown key"):
        ec.summary_lines({"profiles": records, "extra": 1})


# --- 3. tuples wherever a list goes ---------------------------------------------------------------------------


def test_a_profile_takes_tuples_and_its_json_holds_lists(tmp_path):
    require_runtime()
    p = ec.Profile("tuple-profile", exporter="torchscript", batches=(1, 2), model={**ec.MODEL, "hidden_dims": (8,)})
    listed = ec.Profile("tuple-profile", exporter="torchscript", batches=[1, 2], model={**ec.MODEL, "hidden_dims": [8]})
    assert p == listed and hash(p) == hash(listed) and p.batches == (1, 2)
    assert p.to_json()["batches"] == [1, 2] and p.to_json()["model"]["hidden_dims"] == [8]
    assert json.loads(json.dumps(p.to_json())) == p.to_json()
    # A tested name with its exact settings, given with tuples, is the tested profile.
    same = ec.Profile(TORCHSCRIPT, exporter="torchscript", batches=(1, 2, 3, 7),
                      model={**ec.MODEL, "hidden_dims": (8,)})
    assert same == ec.PROFILES[TORCHSCRIPT]
    record = ec.run_profile(p, tmp_path, source_revision="t")
    assert record["status"] == "passed" and record["config"]["hidden_dims"] == [8]
    assert [c["name"] for c in record["input_cases"]] == ["batch-1", "batch-2", "width-5"]
    nested = ec.Profile("nested", model={"hidden_dims": (3, 5), "weights": {"seed": 3}})
    assert nested.model["hidden_dims"] == [3, 5] and nested.model["weights"]["seed"] == 3


def test_records_and_reports_with_tuples_are_accepted_and_strictness_stays(ran, tmp_path):
    report, directory = ran
    record = copy.deepcopy(report["profiles"][0])
    tupled = {**record, "input_cases": tuple(record["input_cases"]),
              "config": {**record["config"], "hidden_dims": tuple(record["config"]["hidden_dims"])},
              "artifacts": {**record["artifacts"], "files": tuple(record["artifacts"]["files"])}}
    ec.validate_record(tupled)
    assert ec.verify_artifacts(tupled, directory) is None
    assert ec.exit_code({"profiles": (tupled,)}) == 0 and ec.exit_code((tupled,)) == 0
    ec.save_report({"format": ec.FORMAT, "status": "passed", "profiles": (tupled,)}, tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["profiles"] == [record]
    again = ec.execute(tupled, directory)
    assert again["status"] == "passed" and again["input_cases"][0]["name"] == "batch-1"
    # Still refused: NaN (in a tuple too), a non-string key, an object JSON cannot hold.
    for bad in ({**record, "versions": {"x": (math.nan,)}}, {**record, "versions": {(1, 2): "x"}},
                {**record, "versions": {1: "x"}}, {**record, "versions": {"x": object()}}):
        with pytest.raises(ec.ConformanceError, match="not strict JSON"):
            ec.validate_record(bad)
    with pytest.raises(ec.ConformanceError, match="not strict JSON"):
        ec.save_report((bad,), tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()


# --- 4. build_model(config=MODEL).net -------------------------------------------------------------------------


def test_build_model_net_has_exactly_the_registered_structure_of_section_2():
    import torch

    built = ec.build_model()
    net = built.net
    assert isinstance(net, torch.nn.Module)
    assert [(name, type(child)) for name, child in net.named_children()] == [("layers", torch.nn.ModuleList)]
    assert [(name, type(m).__name__) for name, m in net.named_modules()] == [
        ("", type(net).__name__), ("layers", "ModuleList"), ("layers.0", "Linear"), ("layers.1", "Linear")]
    assert [(m.in_features, m.out_features) for m in net.layers] == [(4, 8), (8, 2)]
    assert all(type(m) is torch.nn.Linear for m in net.layers)
    assert [name for name, _ in net.named_buffers()] == []
    assert built.parameter_shapes == (("layers.0.weight", (8, 4)), ("layers.0.bias", (8,)),
                                      ("layers.1.weight", (2, 8)), ("layers.1.bias", (2,)))
    assert built.config == {**ec.MODEL, "weights_sha256": built.weights_sha256}
    assert str(built.device) == "cpu"
    assert ec.build_model(ec.MODEL).weights_sha256 == ec.build_model(config=ec.MODEL).weights_sha256


@pytest.mark.parametrize("config", [
    dict(ec.MODEL),
    {**ec.MODEL, "hidden_dims": (3, 5), "activation": "tanh", "input_dim": 6,
     "weights": {**ec.MODEL["weights"], "seed": 123, "std": 0.25}},
    {**ec.MODEL, "hidden_dims": [], "output_dim": 3},
])
def test_build_model_parameters_are_what_torch_randn_draws_bit_for_bit(config):
    import torch

    net = ec.build_model(config).net
    g = torch.Generator().manual_seed(config["weights"]["seed"])
    for name, param in net.named_parameters():
        drawn = torch.randn(param.shape, generator=g) * config["weights"]["std"]
        assert param.dtype == torch.float32 and param.requires_grad, name
        assert param.detach().numpy().tobytes() == drawn.numpy().tobytes(), name


def test_build_model_digest_is_the_records_weights_sha256(ran):
    report, _ = ran
    built = ec.build_model()
    digest = hashlib.sha256()
    for name, param in built.net.named_parameters():  # §2: "<name>|float32|[a, b]|" + little-endian float32
        digest.update(f"{name}|float32|{json.dumps(list(param.shape))}|".encode())
        digest.update(param.detach().numpy().astype("<f4").tobytes())
    for record in report["profiles"]:
        assert digest.hexdigest() == built.weights_sha256 == record["config"]["weights_sha256"]
        assert ec.build_model(record["config"]).config == record["config"]  # a record's config builds too
    with pytest.raises(ec.ConformanceError, match="weights_sha256"):
        ec.build_model({**report["profiles"][0]["config"], "weights_sha256": "0" * 64})
    with pytest.raises(ec.ConformanceError, match="activation"):
        ec.build_model({**ec.MODEL, "activation": "gelu"})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the legacy exporter says it is legacy
def test_build_model_net_exported_as_section_4_says_is_the_runs_model_onnx(ran, tmp_path):
    import torch

    report, directory = ran
    net = ec.build_model().net
    x = torch.randn([2, 4], generator=torch.Generator().manual_seed(7))  # the export example input (§2)
    path = tmp_path / "model.onnx"
    torch.onnx.export(net, (x,), str(path), input_names=["features"], output_names=["logits"],
                      dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    run = directory / report["profiles"][0]["artifacts"]["directory"] / "model.onnx"
    assert report["profiles"][0]["profile"] == TORCHSCRIPT
    assert path.read_bytes() == run.read_bytes()


# --- 5. the script: main(argv) -> int; usage errors raise SystemExit(2) ---------------------------------------


@pytest.fixture(scope="module")
def script():
    path = REPO / "scripts" / "check_export_conformance.py"
    spec = importlib.util.spec_from_file_location("check_export_conformance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_main_returns_the_exit_code(script, tmp_path, capsys):
    require_runtime()
    code = script.main(["--output", str(tmp_path / "r.json"), "--profile", TORCHSCRIPT])
    assert code == 0 and type(code) is int
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{TORCHSCRIPT}: passed;") and out[-1] == "exit code: 0"
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "passed"


@pytest.mark.parametrize("argv, needle", [
    ([], "--output"),
    (["--output", "x.json", "--profile", "feedfwd-fp64"], 'unknown profile "feedfwd-fp64"'),
    (["--output", "x.json", "--bogus"], "unrecognized arguments"),
])
def test_script_usage_errors_raise_system_exit_2(script, tmp_path, capsys, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        script.main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "usage error" in err and needle in err
    assert not (tmp_path / "x.json").exists()


def test_script_folder_in_use_raises_system_exit_2(script, tmp_path, capsys):
    arts = tmp_path / "arts"
    (arts / TORCHSCRIPT).mkdir(parents=True)
    (arts / TORCHSCRIPT / "old.onnx").write_text("kept")
    with pytest.raises(SystemExit) as stopped:
        script.main(["--output", str(tmp_path / "r.json"), "--artifacts", str(arts), "--profile", TORCHSCRIPT])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "usage error" in err[0] and "--force" in err[0]
    assert not (tmp_path / "r.json").exists()
