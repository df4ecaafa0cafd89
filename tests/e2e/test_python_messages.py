"""What the Python package says when it refuses, on the package this build staged: every message names
Python's arguments (`force=True`, `onnxruntime=PATH`, `runtimes`, `jobs`), never a flag of the command line
(the core words both from one table, src/base/front_end.h), and each refusal the README and the docstrings
document raises exactly the class they name (python/nnx/_errors.py)."""
import sys

import pytest

from conftest import BUILD, BUNDLED_ORT, require_runtime
from support import write_json

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"
WIDE = {**ec.MODEL, "input_dim": 4096, "hidden_dims": (8,), "output_dim": 2}


def refusal(call):
    with pytest.raises(ec.ConformanceError) as raised:
        call()
    return raised.value


def test_a_provider_this_build_cannot_run_is_refused_naming_the_python_argument(tmp_path):
    require_runtime()
    error = refusal(lambda: ec.run_profile(ec.Profile("on-cuda", provider="CUDAExecutionProvider"), tmp_path / "a"))
    assert type(error) is ec.UsageError
    assert str(error).startswith('profile "on-cuda": provider CUDAExecutionProvider is not available in ONNX '
                                 "Runtime 1.30.0 ("), str(error)
    assert str(error).endswith("run it on CPUExecutionProvider, or name a library built with CUDAExecutionProvider "
                               "(onnxruntime=PATH)"), str(error)
    assert list(tmp_path.iterdir()) == [], "refused before any export: nothing written"


@pytest.mark.parametrize("call, words", [
    (lambda d: ec.runtime_matrix(d / "r.json", d, runtimes=[]),
     'no runtime: name one or more with runtimes=[PATH or "X.Y.Z", ...]'),
    (lambda d: ec.runtime_matrix(d / "r.json", d, runtimes=[str(d / "absent.so")]),
     "runtimes entry {d}/absent.so: no such library file"),
    (lambda d: ec.runtime_matrix(d / "r.json", d, runtimes=["1234.0.0"]),
     'runtimes entry "1234.0.0" is not a release number X.Y.Z'),
    (lambda d: ec.run_profiles(d / "a", jobs=0), "jobs must be at least 1, not 0"),
    (lambda d: ec.run_profiles(d / "a", [ec.Profile("wide", batches=tuple(range(4033, 4097)), model=WIDE)]),
     "(memory limit {limit}: half of the memory available; a case may take a quarter)"),
])
def test_the_cores_messages_name_pythons_arguments_and_no_flag(tmp_path, call, words):
    error = refusal(lambda: call(tmp_path))
    assert type(error) is ec.UsageError
    message = str(error)
    if "{limit}" in words:
        limit = message.split("(memory limit ")[1].split(":")[0]
        words = words.replace("{limit}", limit)
    assert words.format(d=tmp_path) in message, message
    assert "--" not in message, message


def test_a_folder_in_use_names_force_true_and_force_true_clears_it(tmp_path):
    require_runtime()
    (tmp_path / TORCHSCRIPT).mkdir()
    (tmp_path / TORCHSCRIPT / "stale.onnx").write_text("x")
    error = refusal(lambda: ec.run_profile(TORCHSCRIPT, tmp_path))
    assert type(error) is ec.FolderInUse
    assert str(error).endswith("already holds files; pass force=True to clear it") and "--force" not in str(error)
    assert error.problems == (str(error).removesuffix("; pass force=True to clear it"),)
    assert ec.run_profile(TORCHSCRIPT, tmp_path, force=True)["status"] == "passed"
    assert not (tmp_path / TORCHSCRIPT / "stale.onnx").exists()


@pytest.fixture(scope="module")
def passed(tmp_path_factory):
    """One passed torchscript record and its artifacts root."""
    require_runtime()
    root = tmp_path_factory.mktemp("passed")
    record = ec.run_profile(TORCHSCRIPT, root)
    assert record["status"] == "passed"
    return record, root


def test_an_execute_without_a_runtime_names_the_onnxruntime_argument(passed, tmp_path):
    record, root = passed
    error = refusal(lambda: ec.execute(record, root, onnxruntime=tmp_path / "absent.so"))
    assert type(error) is ec.RuntimeUnavailable and error.exit_code == 10
    assert str(error).endswith("\n  (onnxruntime=PATH names the library for this call)"), str(error)
    assert "--onnxruntime" not in str(error)


def _bad_profile_file(d):
    return ec.load_profiles(write_json(d / "p.json", [{"name": 3}]))


def _not_a_report(d):
    return ec.runtime_matrix(write_json(d / "r.json", {"format": "nope"}), d, runtimes=[str(BUNDLED_ORT)])


# Each documented refusal, where it is documented, the call and the exact class it names.
DOCUMENTED = [
    ("run_profile: an unknown name is its UsageError", lambda d: ec.run_profile("resnet50", d), ec.UsageError),
    ("run_profiles: an unknown tested name is a UsageError", lambda d: ec.run_profiles(d, ["resnet50"]), ec.UsageError),
    ("Profile: an invalid one raises ConformanceError", lambda d: ec.Profile("x", rtol=-1.0), ec.ConformanceError),
    ("Profile: one reusing a tested name raises ConformanceError", lambda d: ec.Profile(DYNAMO, opset_version=18),
     ec.ConformanceError),
    ("run_profiles: two profiles of one name with different settings are a ConformanceError",
     lambda d: ec.run_profiles(d, [ec.Profile("same"), ec.Profile("same", opset_version=18)]), ec.ConformanceError),
    ("run_profiles: jobs below 1 is a UsageError", lambda d: ec.run_profiles(d, jobs=-3), ec.UsageError),
    ("README: a count that is no whole number is an ArgumentError", lambda d: ec.run_profiles(d, jobs=1.5),
     ec.ArgumentError),
    ("README: a matrix count that is no whole number is an ArgumentError",
     lambda d: ec.runtime_matrix(d / "r.json", d, runtimes=["9.9.9"], jobs="4"), ec.ArgumentError),
    ("README: validate_record raises ConformanceError", lambda d: ec.validate_record({}), ec.ConformanceError),
    ("README: load_profiles names every bad entry in one UsageError", _bad_profile_file, ec.UsageError),
    ("execute: an unknown reference is a UsageError", lambda d: ec.execute({}, d, reference="jax"), ec.UsageError),
    ("execute: an invalid record is a ConformanceError", lambda d: ec.execute({}, d), ec.ConformanceError),
    ("runtime_matrix: a release not in the cache is a UsageError",
     lambda d: ec.runtime_matrix(d / "r.json", d, runtimes=["9.9.9"]), ec.UsageError),
    ("runtime_matrix: an invalid report is a ConformanceError", _not_a_report, ec.ConformanceError),
    ("README: a path holding a NUL is a UsageError", lambda d: ec.run_profile(TORCHSCRIPT, "a\0b"), ec.UsageError),
    ("README: None for a path is an ArgumentError", lambda d: ec.run_profile(TORCHSCRIPT, None), ec.ArgumentError),
]


@pytest.mark.parametrize("claim, call, cls", DOCUMENTED, ids=[claim for claim, _, _ in DOCUMENTED])
def test_each_documented_refusal_raises_the_class_the_docs_name(tmp_path, claim, call, cls):
    require_runtime()
    error = refusal(lambda: call(tmp_path))
    assert type(error) is cls, f"{claim}: {type(error).__name__}: {error}"
    assert isinstance(error, ValueError), "every ConformanceError is a ValueError"
    if cls is ec.ArgumentError:
        assert isinstance(error, TypeError) and isinstance(error, ec.UsageError)
    assert not (tmp_path / TORCHSCRIPT).exists(), "refused before anything ran"


def test_only_pythons_own_refusal_of_the_call_is_a_bare_type_error(tmp_path):
    with pytest.raises(TypeError) as raised:
        ec.run_profile(TORCHSCRIPT)  # the directory is missing
    assert not isinstance(raised.value, ec.ConformanceError)
    with pytest.raises(TypeError) as raised:
        ec.run_profiles(tmp_path, jobs_count=2)  # no such argument
    assert not isinstance(raised.value, ec.ConformanceError)
