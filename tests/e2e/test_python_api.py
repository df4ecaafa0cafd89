"""The Python API nnx.export_conformance on both tested profiles (issue: the Python package).

Everything is real: the package this build staged (<build>/python/nnx: the extension nnx._core and the
packaged worker), the C++ core behind it, PyTorch's exporters in the worker, onnx.checker and ONNX Runtime.
"""
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

from conftest import BUILD, BUNDLED_ORT, REPO, require_runtime
from support import saved_text

sys.path.insert(0, str(BUILD / "python"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"


def test_the_package_is_the_one_this_build_staged():
    assert Path(nnx.__file__).resolve().parent == (BUILD / "python" / "nnx").resolve()
    assert (Path(ec.__file__).parent / "_worker" / "nnx_worker.py").is_file()
    # The package ships no test-only module: its worker folder holds the worker, its modules and its network module
    # alone (and maybe their bytecode).
    shipped = sorted(p.name for p in (Path(ec.__file__).parent / "_worker").iterdir() if p.name != "__pycache__")
    assert shipped == ["nnx_torch_model.py", "nnx_worker.py", "nnx_worker_bind.py", "nnx_worker_check.py",
                       "nnx_worker_dependencies.py", "nnx_worker_feedfwd_values.py",
                       "nnx_worker_fork.py", "nnx_worker_graph_values.py", "nnx_worker_imported.py", "nnx_worker_intermediates.py",
                       "nnx_worker_model.py", "nnx_worker_module.py",
                       "nnx_worker_module_load.py", "nnx_worker_module_request.py", "nnx_worker_precision.py",
                       "nnx_worker_reference.py",
                       "nnx_worker_scores.py", "nnx_worker_tensor_files.py", "nnx_worker_tensors.py",
                       "nnx_worker_warm.py", "nnx_worker_watch.py",
                       "nnx_worker_weights.py"]
    assert nnx.__version__ == "0.1.0"


def test_vocabulary_comes_from_the_core():
    assert ec.FORMAT == "nnx.export-conformance/1"
    assert ec.STAGES == ("dependencies", "export", "check", "load", "parity")
    assert ec.LEVELS == ("executed", "structural", "none")
    assert dict(ec.EXIT_CODES) == {
        "missing-dependency": 10, "export-error": 11, "state-changed": 12, "checker-error": 13,
        "hash-mismatch": 14, "load-error": 15, "mismatch": 16, "input-contract": 17, "runtime-error": 18,
    }   # the brief's format's nine, as the original publishes them (tool-error, 19, is a successor record's)
    assert ec.FAILURES == tuple(ec.EXIT_CODES)
    assert ec.FAILURE_STAGES["hash-mismatch"] == "load" and ec.FAILURE_STAGES["input-contract"] == "parity"
    assert ec.MODEL == {
        "net": "feed_fwd", "input_dim": 4, "hidden_dims": [8], "output_dim": 2, "activation": "relu",
        "dropout": 0.0, "weights": {"generator": "torch.Generator", "seed": 0, "distribution": "normal", "std": 0.5},
    }
    assert list(ec.PROFILES) == [TORCHSCRIPT, DYNAMO]
    assert ec.PROFILES[DYNAMO] == ec.Profile(DYNAMO, exporter="dynamo")
    assert ec.PROFILES[TORCHSCRIPT].batches == (1, 2, 3, 7)


def test_profile_defaults_and_refusals_come_from_the_core():
    p = ec.Profile("small", model={"hidden_dims": [3]})
    assert (p.exporter, p.opset_version, p.export_batch, p.dynamic_batch) == ("torchscript", 17, 2, True)
    assert (p.rtol, p.atol, p.runtime, p.provider, p.dtype) == (1e-4, 1e-5, "onnxruntime", "CPUExecutionProvider", "float32")
    assert p.model == {**ec.MODEL, "hidden_dims": [3]}  # a partial model takes the defaults
    with pytest.raises(AttributeError):
        p.name = "other"  # frozen
    assert hash(p) == hash(ec.Profile("small", model={"hidden_dims": [3]}))
    with pytest.raises(ec.ConformanceError, match="reuses a tested profile's name"):
        ec.Profile(TORCHSCRIPT, batches=(1, 2))
    with pytest.raises(ec.ConformanceError) as refused:
        ec.Profile("../escape", exporter="tflite", rtol=-1.0, dtype="float16")
    assert len(refused.value.problems) == 4
    with pytest.raises(ec.ConformanceError, match="opset_version"):
        ec.Profile("x", opset_version=17.0)  # a float is not an integer
    with pytest.raises(ec.ConformanceError, match="not strict JSON"):
        ec.Profile("x", rtol=math.nan)
    assert issubclass(ec.ConformanceError, ValueError)
    assert issubclass(ec.FolderInUse, ec.UsageError) and issubclass(ec.UsageError, ec.ConformanceError)
    assert issubclass(ec.RuntimeUnavailable, ec.ConformanceError)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """Both tested profiles through run_profiles: (records, artifact root)."""
    require_runtime()
    root = tmp_path_factory.mktemp("api") / "artifacts"
    report = ec.run_profiles(root)
    assert list(report) == ["format", "profiles", "status"]  # the core's report
    assert report["format"] == ec.FORMAT and report["status"] == "passed"
    return report["profiles"], root


def test_both_profiles_pass_through_the_api(both):
    records, root = both
    assert [r["profile"] for r in records] == [TORCHSCRIPT, DYNAMO]
    for record in records:
        assert record["status"] == "passed" and record["level"] == "executed" and record["failure"] is None
        assert [record["stages"][s]["status"] for s in ec.STAGES] == ["passed"] * 5
        assert type(record) is dict and type(record["input_cases"]) is list  # plain dicts and lists
        assert all(c["max_abs_error"] < 1e-5 for c in record["input_cases"] if c["expect"] == "match")
        assert record["versions"]["onnxruntime_library"] == str(BUNDLED_ORT)
        assert record["source"]["origin"] == ("git" if (REPO / ".git").exists() else "unknown")
        assert (root / record["artifacts"]["directory"] / "model.onnx").is_file()
        ec.validate_record(record)
        assert ec.verify_artifacts(record, root) is None
    assert ec.exit_code(records) == 0
    lines = ec.summary_lines(records)
    assert lines[0].startswith(f"{TORCHSCRIPT}: passed; level=executed; exporter=torchscript; onnxruntime=")
    assert lines[1].endswith("5/5 input cases passed")


def test_the_worker_runs_in_this_interpreter_from_the_package(both, tmp_path, monkeypatch):
    records, _ = both
    assert records[0]["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))
    python, script = ec._worker()
    assert python == sys.executable
    assert Path(script) == Path(ec.__file__).resolve().parent / "_worker" / "nnx_worker.py"
    monkeypatch.setenv("NNX_WORKER_SCRIPT", str(tmp_path / "no_worker.py"))  # the override reaches the core
    record = ec.run_profile(TORCHSCRIPT, tmp_path / "out")
    assert record["failure"] == "missing-dependency"
    assert "no_worker.py" in record["stages"]["dependencies"]["detail"]


def test_execute_reruns_load_and_parity(both):
    records, root = both
    for record in records:
        again = ec.execute(record, root)
        assert again["status"] == "passed" and again["level"] == "executed"
        assert again["stages"]["export"] == record["stages"]["export"]
        assert again["artifacts"] == record["artifacts"] and again["config"] == record["config"]
        ec.validate_record(again)


def test_verify_and_execute_refuse_changed_artifacts(both, tmp_path):
    records, root = both
    record = records[1]
    copy = tmp_path / "copy"
    shutil.copytree(root / DYNAMO, copy / DYNAMO)
    folder = copy / DYNAMO
    data = bytearray((folder / "model.onnx").read_bytes())
    data[-1] ^= 1  # same size, other bytes
    (folder / "model.onnx").write_bytes(bytes(data))
    (folder / "extra.bin").write_bytes(b"x")
    with pytest.raises(ec.ConformanceError) as refused:
        ec.verify_artifacts(record, copy)
    assert sorted(refused.value.problems) == ["extra.bin: not in the record", "model.onnx: hash mismatch"]
    assert "model.onnx: hash mismatch" in str(refused.value)
    again = ec.execute(record, copy)
    assert again["failure"] == "hash-mismatch" and again["level"] == "structural"
    assert again["stages"]["parity"]["status"] == "not_run"
    assert ec.exit_code([again]) == 14 and ec.exit_code([records[0], again]) == 14
    (folder / "model.onnx").unlink()
    with pytest.raises(ec.ConformanceError, match="model.onnx: missing"):
        ec.verify_artifacts(record, copy)


def test_validate_records_returns_each_records_problems_in_one_call(both):
    records, _ = both
    broken = json.loads(json.dumps(records[0]))
    broken["level"] = "none"
    broken["input_cases"][0]["seed"] = -1
    with pytest.raises(ec.ConformanceError) as refused:
        ec.validate_record(broken)
    problems = ec.validate_records([records[0], broken, *records])
    assert problems[0] == [] and problems[2:] == [[] for _ in records]
    assert problems[1] == list(refused.value.problems) and len(problems[1]) >= 2
    assert ec.validate_records([]) == []
    with pytest.raises(ec.ConformanceError, match="record 1 is not strict JSON"):
        ec.validate_records([records[0], {**records[0], "versions": {"x": math.inf}}])


def test_records_cross_as_objects_with_the_strictness_and_words_of_the_json_text(both):
    """validate_record / validate_records / verify_artifacts hand the core the Python objects (python_json.h):
    each refusal is the one the JSON text path (_dumps, then the core's strict parser) gave, in its words."""
    records, root = both
    record = records[0]

    class Odd:
        pass

    same_words = [
        {**record, "versions": {"x": math.nan}},
        {**record, "versions": {"x": (1.0, -math.inf)}},
        {**record, "versions": {(1, 2): "x"}},
        {**record, "versions": {1: "x"}},
        {**record, "versions": {None: "x", "y": Odd()}},  # the object wins: json.dumps stops there first
        {**record, "versions": {"x": Odd()}},
        {**record, "versions": {"x": b"bytes"}},
        {**record, "versions": {"x": {1, 2}}},
        {**record, "versions": {True: "x"}},
    ]
    for bad in same_words:
        with pytest.raises(ec.ConformanceError) as by_text:
            ec._dumps(bad, "the record")
        with pytest.raises(ec.ConformanceError) as by_object:
            ec.validate_record(bad)
        assert str(by_object.value) == str(by_text.value)
        with pytest.raises(ec.ConformanceError) as in_batch:
            ec.validate_records([record, bad])
        assert str(in_batch.value) == str(by_text.value).replace("the record", "record 1", 1)
        with pytest.raises(ec.ConformanceError) as verified:
            ec.verify_artifacts(bad, root)
        assert str(verified.value) == str(by_text.value)
    # What the core's parser refused in the text: the same refusal, named without a byte offset.
    deep: object = "leaf"
    for _ in range(200):
        deep = [deep]
    cycle: list = []
    cycle.append(cycle)
    for bad, words in (({**record, "versions": {"x": 2 ** 64}}, "integer 18446744073709551616 does not fit"),
                       ({**record, "versions": {"x": -(2 ** 63) - 1}}, "does not fit in int64 or uint64"),
                       ({**record, "versions": {"x": deep}}, "nesting deeper than 128 levels"),
                       ({**record, "versions": {"x": cycle}}, "nesting deeper than 128 levels"),
                       ({**record, "versions": {"x": "\udc80"}}, "invalid surrogate escape")):
        with pytest.raises(ec.ConformanceError, match="the record is not strict JSON: .*" + words):
            ec.validate_record(bad)
    # Accepted as the text path accepted them: tuples, any Mapping, int and float subclasses, the extremes.
    from collections import OrderedDict
    from enum import IntEnum
    from types import MappingProxyType

    class Seed(IntEnum):
        one = 1

    shaped = {**record, "versions": MappingProxyType(OrderedDict(record["versions"])),
              "input_cases": tuple(record["input_cases"]),
              "source": {**record["source"], "revision": "r\u00e9v\U0001f600"}}
    ec.validate_record(shaped)
    assert ec.validate_records([shaped, record]) == [[], []]
    assert ec.verify_artifacts(shaped, root) is None
    edited = json.loads(json.dumps(record))
    edited["input_cases"][0]["seed"] = Seed.one  # an int: the settings rule sees 1, not the profile's seed
    with pytest.raises(ec.ConformanceError) as refused:
        ec.validate_record(edited)
    assert list(refused.value.problems) == ec.validate_records([json.loads(json.dumps(edited))])[0]
    huge = json.loads(json.dumps(record))
    huge["versions"]["u"], huge["versions"]["i"] = 2 ** 64 - 1, -(2 ** 63)
    ec.validate_record(huge)
    # A Mapping that gives a key twice is read as `_plain` reads it: the last value counts.
    from collections.abc import Mapping

    class Twice(Mapping):
        def __init__(self, pairs):
            self.pairs = pairs

        def __getitem__(self, key):
            return dict(self.pairs)[key]

        def __iter__(self):
            return iter(dict(self.pairs))

        def __len__(self):
            return len(dict(self.pairs))

        def items(self):
            return list(self.pairs)

    tolerances = record["tolerances"]
    twice = {**record, "tolerances": Twice([("rtol", -1.0), *tolerances.items()])}
    ec._dumps(twice, "the record")
    ec.validate_record(twice)
    assert ec.validate_records([twice]) == [[]]
    with pytest.raises(ec.ConformanceError, match="tolerances.rtol: must be a finite number >= 0"):
        ec.validate_record({**record, "tolerances": Twice([*tolerances.items(), ("rtol", -1.0)])})


def test_validate_records_on_threads_gives_each_records_own_problems_in_order(both):
    """Enough records for the worker threads (record/validate_batch.h): every record is still validated whole
    and its problems come back at its index, as validate_record names them one by one."""
    records, _ = both
    batch = []
    for i in range(600):
        r = json.loads(json.dumps(records[i % 2]))
        if i % 7 == 3:
            r["input_cases"][0]["seed"] = -i
        if i % 11 == 5:
            r["level"] = "none"
        batch.append(r)
    found = ec.validate_records(batch)
    assert len(found) == len(batch)
    for i, (r, problems) in enumerate(zip(batch, found)):
        if i % 7 != 3 and i % 11 != 5:
            assert problems == [], i
            continue
        with pytest.raises(ec.ConformanceError) as one:
            ec.validate_record(r)
        assert problems == list(one.value.problems), i
        if i % 7 == 3:
            assert any(f"is not an integer in [0, 2^63)" in p and str(-i) in p for p in problems), problems
    assert ec.validate_records(r for r in batch[:3]) == found[:3]  # any iterable


def test_verify_artifacts_many_verifies_each_record_under_one_root(both, tmp_path):
    records, root = both
    assert ec.verify_artifacts_many(records, root) == [[], []]
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    (copy / records[1]["artifacts"]["directory"] / "extra.bin").write_bytes(b"x")
    assert ec.verify_artifacts_many(iter(records), copy) == [[], ["extra.bin: not in the record"]]


def test_validate_record_names_every_problem(both, tmp_path):
    records, _ = both
    record = json.loads(json.dumps(records[0]))
    record["level"] = "none"
    record["stages"]["check"]["failure"] = "mismatch"
    record["input_cases"][0]["seed"] = -1
    with pytest.raises(ec.ConformanceError) as refused:
        ec.validate_record(record)
    assert len(refused.value.problems) >= 3
    assert all(p in str(refused.value) for p in refused.value.problems)
    with pytest.raises(ec.ConformanceError, match="not strict JSON"):
        ec.validate_record({**records[0], "versions": {"x": math.inf}})
    with pytest.raises(ec.ConformanceError, match="not strict JSON"):
        ec.validate_record({**records[0], "versions": {1: "a non-string key"}})
    with pytest.raises(ec.ConformanceError):
        ec.validate_record([records[0]])
    unchecked = ec.run_profile(TORCHSCRIPT, tmp_path, onnxruntime=tmp_path / "absent.so")
    ec.validate_record(unchecked)
    with pytest.raises(ec.ConformanceError, match="check"):
        ec.execute(unchecked, tmp_path)


def test_save_report_layout_and_validation_before_writing(both, tmp_path):
    records, _ = both
    path = tmp_path / "deep" / "report.json"
    ec.save_report(records, path)
    text = path.read_text()
    report = json.loads(text)
    assert list(report) == ["format", "profiles", "status"]
    assert report["format"] == ec.FORMAT and report["status"] == "passed" and report["profiles"] == records
    assert text == saved_text(report)
    ec.save_report(report, tmp_path / "again.json")  # a report is accepted too
    assert (tmp_path / "again.json").read_text() == text
    assert ec.exit_code(report) == 0 and ec.summary_lines(report) == ec.summary_lines(records)
    bad = json.loads(json.dumps(records[1]))
    bad["status"] = "failed"
    with pytest.raises(ec.ConformanceError, match="profiles\\[1\\]"):
        ec.save_report([records[0], bad], path)
    assert path.read_text() == text  # the earlier report is untouched
    with pytest.raises(ec.ConformanceError, match="contradicts"):
        ec.save_report({**report, "status": "failed"}, tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()
    ec.save_report([], tmp_path / "empty.json")
    assert json.loads((tmp_path / "empty.json").read_text())["status"] == "failed"
    assert ec.exit_code([]) == 1
