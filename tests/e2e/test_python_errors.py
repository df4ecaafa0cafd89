"""Hostile Python (issue 28, "Wrong codes and messages"): every public function of nnx.export_conformance,
given a value of the wrong type in any argument (None, numbers, huge ints, bytes for text, a NUL in a path,
objects JSON cannot hold), raises a documented ConformanceError subclass naming the argument: never
SystemError, RuntimeError, OverflowError or a bare TypeError. Real core, real files; nothing runs a profile."""
import re
import sys

import pytest

from conftest import BUILD

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

HOSTILE = [None, 1, 10**30, -1, 1.5, float("nan"), b"bytes", bytearray(b"x"), "a\0b", object(), [], {}, {"a": 1},
           True, 2**64, -(2**63) - 1, [None], ["x"]]
RECORD = {"format": ec.FORMAT}


def calls(tmp):
    """(what, call of one hostile value) for every public function and argument that can be given one."""
    return {
        "run_profile(profile)": lambda v: ec.run_profile(v, tmp / "r"),
        "run_profile(directory)": lambda v: ec.run_profile("unknown", v),
        "run_profile(source_revision)": lambda v: ec.run_profile("unknown", tmp, source_revision=v),
        "run_profile(onnxruntime)": lambda v: ec.run_profile("unknown", tmp, onnxruntime=v),
        "run_profiles(directory)": lambda v: ec.run_profiles(v, ["unknown"]),
        "run_profiles(names)": lambda v: ec.run_profiles(tmp / "r", ["unknown"] if v is None else v),
        "run_profiles(jobs)": lambda v: ec.run_profiles(tmp / "r", ["unknown"], jobs=v),
        "run_profiles(source_revision)": lambda v: ec.run_profiles(tmp / "r", ["unknown"], source_revision=v),
        "run_profiles(onnxruntime)": lambda v: ec.run_profiles(tmp / "r", ["unknown"], onnxruntime=v),
        "execute(record)": lambda v: ec.execute(v, tmp),
        "execute(directory)": lambda v: ec.execute(RECORD, v),
        "execute(reference)": lambda v: ec.execute(RECORD, tmp, reference=v),
        "execute(onnxruntime)": lambda v: ec.execute(RECORD, tmp, onnxruntime=v),
        "verify_artifacts(record)": lambda v: ec.verify_artifacts(v, tmp),
        "verify_artifacts(directory)": lambda v: ec.verify_artifacts(RECORD, v),
        "verify_artifacts_many(records)": lambda v: ec.verify_artifacts_many(v, tmp),
        "verify_artifacts_many(directory)": lambda v: ec.verify_artifacts_many([RECORD], v),
        "validate_record(record)": lambda v: ec.validate_record(v),
        "validate_records(records)": lambda v: ec.validate_records(v),
        "save_report(report)": lambda v: ec.save_report(v, tmp / "s.json"),
        "save_report(path)": lambda v: ec.save_report([], v),
        "exit_code(report)": lambda v: ec.exit_code(v),
        "summary_lines(report)": lambda v: ec.summary_lines(v),
        "load_profiles(path)": lambda v: ec.load_profiles(v),
        "default_artifacts_root(report_path)": lambda v: ec.default_artifacts_root(v),
        "runtime_matrix(report)": lambda v: ec.runtime_matrix(v, tmp, runtimes=["9.9.9"]),
        "runtime_matrix(directory)": lambda v: ec.runtime_matrix(tmp / "x.json", v, runtimes=["9.9.9"]),
        "runtime_matrix(runtimes)": lambda v: ec.runtime_matrix(tmp / "x.json", tmp, runtimes=v),
        "runtime_matrix(jobs)": lambda v: ec.runtime_matrix(tmp / "x.json", tmp, runtimes=["9.9.9"], jobs=v),
        "runtime_matrix(output)": lambda v: ec.runtime_matrix(tmp / "x.json", tmp, runtimes=["9.9.9"], output=v),
        "build_model(config)": lambda v: ec.build_model(v),
        "Profile(name)": lambda v: ec.Profile(v),
        "Profile(rtol)": lambda v: ec.Profile("p", "torchscript", rtol=v),
        "Profile(batches)": lambda v: ec.Profile("p", "torchscript", batches=v),
        "Profile(model)": lambda v: ec.Profile("p", "torchscript", model=v),
        "Profile(opset_version)": lambda v: ec.Profile("p", "torchscript", opset_version=v),
        "ModuleProfile(module)": lambda v: ec.ModuleProfile("m", "torchscript", v, [], {}),
        "ModuleProfile(inputs)": lambda v: ec.ModuleProfile("m", "torchscript", "a.py:f", v, {}),
        "ModuleProfile(dims)": lambda v: ec.ModuleProfile("m", "torchscript", "a.py:f", [], v),
        "ModuleProfile(opset)": lambda v: ec.ModuleProfile("m", "torchscript", "a.py:f", [], {}, opset=v),
    }


def test_every_public_function_refuses_every_hostile_argument_with_a_conformance_error(tmp_path):
    escaped = []
    for what, call in calls(tmp_path).items():
        for value in HOSTILE:
            try:
                call(value)
            except ec.ConformanceError as error:
                assert str(error), (what, value)  # a message, always
            except Exception as error:  # noqa: BLE001  (what this test looks for)
                escaped.append(f"{what} given {value!r:.30}: {type(error).__name__}: {error}")
    assert escaped == [], "\n".join(escaped)


@pytest.mark.parametrize("value, words", [
    (None, "directory must be a path (str or os.PathLike), not NoneType"),
    (7, "directory must be a path (str or os.PathLike), not int"),
    (b"artifacts", "directory must be a path as text, not bytes (decode it first)"),
])
def test_a_path_of_the_wrong_type_is_an_argument_error_that_is_a_type_error_too(tmp_path, value, words):
    with pytest.raises(ec.ArgumentError, match=re.escape(words)) as raised:
        ec.verify_artifacts(RECORD, value)
    assert isinstance(raised.value, TypeError) and isinstance(raised.value, ec.UsageError)


def test_a_path_holding_a_nul_is_a_usage_error_naming_it(tmp_path):
    with pytest.raises(ec.UsageError, match=r"path 'a\\x00b' holds a NUL byte"):
        ec.save_report([], "a\0b")


@pytest.mark.parametrize("value", [10**30, -1, 0, 1.5, True, "4"])
def test_a_matrix_jobs_that_is_no_count_of_at_least_one_is_a_usage_error(tmp_path, value):
    with pytest.raises(ec.UsageError, match="jobs must be"):
        ec.runtime_matrix(tmp_path / "x.json", tmp_path, runtimes=["9.9.9"], jobs=value)


def test_text_where_bytes_were_given_names_the_argument(tmp_path):
    with pytest.raises(ec.ArgumentError, match="source_revision must be a str or None, not bytes"):
        ec.run_profile("unknown", tmp_path, source_revision=b"c0ffee")
    with pytest.raises(ec.ArgumentError, match="reference must be a str or None, not int"):
        ec.execute(RECORD, tmp_path, reference=1)


def test_a_report_that_cannot_be_written_is_a_write_error_that_is_an_os_error_too(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ec.WriteError) as raised:
        ec.save_report([], tmp_path / "a-file" / "report.json")  # its folder would be a file
    assert isinstance(raised.value, OSError) and isinstance(raised.value, ec.ConformanceError)
    assert "a-file: Not a directory" in str(raised.value)
    assert (tmp_path / "a-file").read_text() == ""


def test_a_subnormal_tolerance_is_refused_when_the_profile_is_made():
    with pytest.raises(ec.ConformanceError, match=r"rtol must be 0 or at least 1\.1754943508222875e-38"):
        ec.Profile("tiny", "torchscript", rtol=5e-324)
    with pytest.raises(ec.UsageError, match=r"atol must be 0 or at least 1\.1754943508222875e-38"):
        ec.ModuleProfile("tiny", "torchscript", "a.py:f", [{"name": "x", "shape": [1], "dtype": "float32"}],
                         {}, atol=5e-324)
