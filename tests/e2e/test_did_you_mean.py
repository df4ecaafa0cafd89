"""Mistakes cost no minutes (issue 42, "Did you mean"): a mistyped profile key, dtype or factory name is refused
with the name meant before any worker starts (exit 2; the worker's interpreter here is a stand-in that leaves a
mark when started), by the command line and by Python's ModuleProfile alike; a factory name the file binds is
the worker's to judge, and an nn.Module instance named where a factory goes is named as such."""
import json
import stat
import sys

import pytest

from conftest import BUILD, run_cli

sys.path.insert(0, str(BUILD / "python"))
import nnx.export_conformance as ec  # noqa: E402

FACTORY = '''import torch


def make():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 3)


instance = make()
'''


def profile(folder, **changes):
    out = {"name": "tiny", "exporter": "torchscript", "module": f"{folder / 'tiny.py'}:make",
           "inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}], "dims": {"batch": [2, 3]}}
    out.update(changes)
    return out


def refused_before_any_worker(tmp_path, entry):
    """The run's stderr, after checking it exited 2 and never started the worker's interpreter."""
    (tmp_path / "tiny.py").write_text(FACTORY)
    marker = tmp_path / "worker-started"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "profiles.json").write_text(json.dumps([entry]))
    done = run_cli("run", "--profile-file", tmp_path / "profiles.json", "--output", tmp_path / "out" / "report.json",
                   env={"NNX_PYTHON": str(python)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert not marker.exists(), "a worker was started"
    assert not (tmp_path / "out").exists()
    return done.stderr


def test_a_mistyped_profile_key_is_refused_with_the_key_meant_before_any_worker_starts(tmp_path):
    entry = profile(tmp_path)
    entry["dim"] = entry.pop("dims")
    entry["tolerance"] = {"rtol": 1e-3}
    stderr = refused_before_any_worker(tmp_path, entry)
    assert 'profiles[0].dim: unknown key; did you mean "dims"?' in stderr, stderr
    assert 'profiles[0].tolerance: unknown key; did you mean "tolerances"?' in stderr, stderr


def test_a_mistyped_feed_forward_key_gets_the_key_meant_too(tmp_path):
    stderr = refused_before_any_worker(tmp_path, {"name": "ff", "exporter": "torchscript", "batchs": [1, 2]})
    assert 'profiles[0].batchs: unknown key; did you mean "batches"?' in stderr, stderr


def test_a_mistyped_dtype_is_refused_with_the_dtype_meant_before_any_worker_starts(tmp_path):
    entry = profile(tmp_path, inputs=[{"name": "x", "shape": ["batch", 4], "dtype": "flaot32"}])
    stderr = refused_before_any_worker(tmp_path, entry)
    assert 'unknown dtype "flaot32" (float32, float64, float16, bfloat16, int64, int32, int8, uint8, bool); did you mean "float32"?' in stderr, stderr


def test_a_factory_name_its_file_binds_nowhere_is_refused_with_the_nearest_before_any_worker_starts(tmp_path):
    stderr = refused_before_any_worker(tmp_path, profile(tmp_path, module=f"{tmp_path / 'tiny.py'}:mkae"))
    assert f'module: {tmp_path / "tiny.py"} binds no name "mkae"' in stderr, stderr
    assert 'did you mean "make"?' in stderr, stderr


def test_a_factory_name_far_from_every_name_lists_the_names_the_file_binds(tmp_path):
    stderr = refused_before_any_worker(tmp_path, profile(tmp_path, module=f"{tmp_path / 'tiny.py'}:network"))
    assert 'binds no name "network"' in stderr and "the names it binds: torch, make, instance" in stderr, stderr


def test_python_module_profile_refuses_the_same_typos_with_the_same_words(tmp_path):
    (tmp_path / "tiny.py").write_text(FACTORY)
    for change, meant in [({"module": f"{tmp_path / 'tiny.py'}:mkae"}, 'binds no name "mkae"'),
                          ({"inputs": [{"name": "x", "shape": ["batch", 4], "dtype": "flaot32"}]}, '"flaot32"')]:
        with pytest.raises(ec.UsageError) as raised:
            ec.ModuleProfile.from_json(profile(tmp_path, **change))
        problems = "\n".join(raised.value.problems)
        assert meant in problems and "did you mean" in problems, problems


def test_an_nn_module_instance_named_where_a_factory_goes_is_named_as_such(tmp_path):
    (tmp_path / "tiny.py").write_text(FACTORY)
    (tmp_path / "profiles.json").write_text(json.dumps([profile(tmp_path, module=f"{tmp_path / 'tiny.py'}:instance")]))
    done = run_cli("run", "--profile-file", tmp_path / "profiles.json", "--output", tmp_path / "out" / "report.json")
    assert done.returncode == 11, done.stdout + done.stderr
    (record,) = json.loads((tmp_path / "out" / "report.json").read_text())["profiles"]
    error = record["stages"]["export"]["detail"]["error"]
    assert "is an nn.Module instance (torch.nn.modules.linear.Linear), not a factory" in error, error
    assert "def make_instance(): return instance" in error and "check_module" in error, error
    assert "forward()" not in error


def test_a_factory_file_too_big_to_scan_is_left_to_the_worker_unread(tmp_path):
    """The scan reads a factory file only up to the factory-file limit (64 MiB): a bigger one (sparse here) is
    neither read whole nor refused by it."""
    big = tmp_path / "big.py"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)
    profile_ = ec.ModuleProfile("big", "torchscript", f"{big}:make", inputs=[{"name": "x", "shape": [4]}], dims={})
    assert profile_.module.endswith("big.py:make")
