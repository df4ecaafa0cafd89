"""The Python API's runs (nnx.export_conformance.run_profile / run_profiles) on the tested profiles: by name
and by profile, refusals before anything is written, force and the folders it clears, a missing runtime,
a held or symlinked root, and the onnxruntime wheel found without importing it. Everything is real, as in
tests/e2e/test_python_api.py (the package this build staged, the C++ core, the worker, ONNX Runtime)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, BUNDLED_ORT, require_runtime

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"


def test_run_profile_by_name_and_by_profile(tmp_path):
    require_runtime()
    record = ec.run_profile(TORCHSCRIPT, tmp_path, source_revision="0123abc")
    assert record["status"] == "passed" and record["source"]["origin"] == "given"
    assert record["source"]["revision"] == "0123abc"
    custom = ec.Profile("feedfwd-3-wide", model={"hidden_dims": [3, 5], "activation": "tanh"}, batches=(1, 4))
    mine = ec.run_profile(custom, tmp_path, source_revision="")
    assert mine["status"] == "passed" and mine["source"] == {**mine["source"], "origin": "given", "revision": None}
    assert [c["name"] for c in mine["input_cases"]] == ["batch-1", "batch-4", "width-5"]
    assert mine["config"]["hidden_dims"] == [3, 5]
    ec.validate_record(mine)
    ec.verify_artifacts(mine, tmp_path)


def test_run_profile_refuses_before_writing(tmp_path):
    (tmp_path / TORCHSCRIPT).mkdir()
    (tmp_path / TORCHSCRIPT / "old.txt").write_text("kept")
    with pytest.raises(ec.FolderInUse, match="force=True"):
        ec.run_profile(TORCHSCRIPT, tmp_path)
    assert [p.name for p in (tmp_path / TORCHSCRIPT).iterdir()] == ["old.txt"]
    with pytest.raises(ec.ConformanceError, match="unknown profile"):
        ec.run_profile("feedfwd-fp64", tmp_path)
    with pytest.raises(ec.ConformanceError, match="reuses a tested profile's name"):
        ec.run_profile({"name": DYNAMO, "exporter": "torchscript"}, tmp_path)
    assert not (tmp_path / DYNAMO).exists()


def test_run_profile_takes_the_force_its_refusal_names_and_clears_only_that_folder(tmp_path):
    require_runtime()
    (tmp_path / TORCHSCRIPT).mkdir()
    (tmp_path / TORCHSCRIPT / "stale.onnx").write_text("old")
    (tmp_path / DYNAMO).mkdir()
    (tmp_path / DYNAMO / "keep.txt").write_text("other profile")
    with pytest.raises(ec.FolderInUse, match="pass force=True"):
        ec.run_profile(TORCHSCRIPT, tmp_path)
    record = ec.run_profile(TORCHSCRIPT, tmp_path, force=True)
    assert record["status"] == "passed"
    assert not (tmp_path / TORCHSCRIPT / "stale.onnx").exists()
    assert (tmp_path / DYNAMO / "keep.txt").read_text() == "other profile"
    ec.verify_artifacts(record, tmp_path)


def test_a_missing_runtime_is_a_record_with_exit_10(tmp_path):
    record = ec.run_profile(TORCHSCRIPT, tmp_path, onnxruntime=tmp_path / "absent.so")
    assert record["failure"] == "missing-dependency" and record["level"] == "none"
    assert "absent.so" in record["stages"]["dependencies"]["detail"]
    assert ec.exit_code([record]) == 10
    ec.validate_record(record)
    with pytest.raises(ec.RuntimeUnavailable):
        ec.execute(_passed_record_for_execute(tmp_path), tmp_path / "passed", onnxruntime=tmp_path / "absent.so")


def _passed_record_for_execute(tmp_path):
    require_runtime()
    root = tmp_path / "passed"
    return ec.run_profile(TORCHSCRIPT, root)


def test_run_profiles_runs_repeats_once_and_force_clears_only_chosen_folders(tmp_path):
    require_runtime()
    (tmp_path / TORCHSCRIPT).mkdir()
    (tmp_path / TORCHSCRIPT / "stale.onnx").write_text("old")
    (tmp_path / DYNAMO).mkdir()
    (tmp_path / DYNAMO / "keep.txt").write_text("other profile")
    (tmp_path / "unrelated").mkdir()
    (tmp_path / "unrelated" / "keep.txt").write_text("not a profile")
    with pytest.raises(ec.FolderInUse):
        ec.run_profiles(tmp_path, [TORCHSCRIPT])
    with pytest.raises(ec.UsageError, match="unknown profile"):
        ec.run_profiles(tmp_path, [TORCHSCRIPT, "nope"], force=True)
    assert (tmp_path / TORCHSCRIPT / "stale.onnx").exists()  # nothing cleared before every name was known
    report = ec.run_profiles(tmp_path, [TORCHSCRIPT, TORCHSCRIPT, ec.PROFILES[TORCHSCRIPT]], force=True)
    assert [r["profile"] for r in report["profiles"]] == [TORCHSCRIPT] and report["status"] == "passed"
    assert not (tmp_path / TORCHSCRIPT / "stale.onnx").exists()
    assert (tmp_path / DYNAMO / "keep.txt").read_text() == "other profile"
    assert (tmp_path / "unrelated" / "keep.txt").exists()
    with pytest.raises(ec.ConformanceError, match="different settings"):
        ec.run_profiles(tmp_path / "twins", [ec.Profile("twin"), ec.Profile("twin", batches=(1,))])
    assert not (tmp_path / "twins" / "twin").exists()  # at most the root's lock file was made


def test_a_root_another_run_holds_is_a_usage_error(tmp_path):
    import fcntl

    held = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)  # the lock is on the root folder itself
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ec.UsageError, match="another nnx-conformance run holds"):
            ec.run_profiles(tmp_path, [TORCHSCRIPT])
    finally:
        os.close(held)
    assert list(tmp_path.iterdir()) == []


def test_force_on_a_symlinked_root_is_refused_before_anything_is_created(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "root").symlink_to(target)
    with pytest.raises(ec.UsageError, match="symlinked artifacts folder"):
        ec.run_profiles(tmp_path / "root", [TORCHSCRIPT], force=True)
    assert list(target.iterdir()) == []  # not even the lock file
    (tmp_path / "file-root").write_text("x")
    with pytest.raises(ec.UsageError, match="not a folder"):
        ec.run_profiles(tmp_path / "file-root", [TORCHSCRIPT])


def test_the_onnxruntime_wheel_is_found_without_importing_it(tmp_path, monkeypatch):
    """An installed onnxruntime wheel's capi/libonnxruntime.so* is used when nothing earlier names one."""
    require_runtime()
    package = tmp_path / "site" / "onnxruntime"
    (package / "capi").mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('onnxruntime must not be imported')\n")
    wheel_lib = package / "capi" / "libonnxruntime.so.1.30.0"
    wheel_lib.symlink_to(BUNDLED_ORT)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delenv("NNX_ONNXRUNTIME_LIBRARY", raising=False)
    assert ec._onnxruntime_wheel_library() == str(wheel_lib)
    assert ec._onnxruntime_library(None) is None  # this checkout build's bundled copy comes first
    monkeypatch.setattr(ec._core, "bundled_onnxruntime", lambda: "")  # as in a wheel
    assert ec._onnxruntime_library(None) == str(wheel_lib)
    # A fresh process (this one has the bundled copy loaded already): the core opens the wheel's library.
    program = (
        "import json, sys\n"
        f"sys.path[:0] = [{str(BUILD / 'python')!r}, {str(tmp_path / 'site')!r}]\n"
        "import nnx.export_conformance as ec\n"
        "ec._core.bundled_onnxruntime = lambda: ''\n"
        f"record = ec.run_profile('{TORCHSCRIPT}', {str(tmp_path / 'out')!r})\n"
        "print(json.dumps([record['status'], record['versions']['onnxruntime_library'], 'onnxruntime' in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["passed", str(wheel_lib), False]
    monkeypatch.setenv("NNX_ONNXRUNTIME_LIBRARY", str(BUNDLED_ORT))
    assert ec._onnxruntime_library(None) is None  # the environment variable comes before the wheel
    assert ec._onnxruntime_library("/explicit.so") == "/explicit.so"
