"""Every input dtype users' models take, drawn (issue "Every model users bring"; doc/profile-files.md, "Inputs"):
a bool mask, a float16 and a bfloat16 input and int8/uint8 codes reach `executed` under a real export and ONNX
Runtime; the stored inputs hold what the dtype can (bool 0 or 1, a half input the rounding of a float32 draw,
codes within their ranges); `execute` replays them with no Python; an int8 range an int8 cannot hold and an
unknown dtype are exit 2 before any worker starts, naming the rule and the way out."""
import json

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import REPO, run_cli
from module_support import write_profiles
from support import records_by_profile

MODELS = REPO / "tests" / "models" / "input_dtypes.py"
NO_PYTHON = {"NNX_PYTHON": "/bin/false", "NNX_WORKER_SCRIPT": "/nonexistent/worker.py"}


def entry(name, exporter, factory, inputs, dims):
    return {"name": name, "exporter": exporter, "module": f"{MODELS}:{factory}", "inputs": inputs, "dims": dims}


PROFILES = [
    entry("mask-dynamo", "dynamo", "masked_mean",
          [{"name": "x", "shape": ["batch", 6]}, {"name": "mask", "shape": ["batch", 6], "dtype": "bool"}],
          {"batch": [2, 1, 3]}),
    entry("half-torchscript", "torchscript", "half_in", [{"name": "x", "shape": ["batch", 6], "dtype": "float16"}],
          {"batch": [2, 1]}),
    entry("bf16-dynamo", "dynamo", "half_in", [{"name": "x", "shape": ["batch", 6], "dtype": "bfloat16"}],
          {"batch": [2, 1]}),
    entry("codes-dynamo", "dynamo", "codes",
          [{"name": "signed", "shape": ["batch", 4], "dtype": "int8", "range": [-128, 128]},
           {"name": "unsigned", "shape": ["batch", 4], "dtype": "uint8", "range": [250, 256]}], {"batch": [2, 1]}),
]


@pytest.fixture(scope="module")
def dtype_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dtypes")
    done = run_cli("run", "--profile-file", write_profiles(out / "profiles.json", PROFILES),
                   "--output", out / "report.json", timeout=1200)
    return done, out


def stored_input(out, record, case, index):
    folder = out / "report-artifacts" / record["artifacts"]["directory"]
    return numpy_helper.to_array(onnx.load_tensor(str(folder / case["inputs"][index]["file"])))


@pytest.mark.parametrize("name", [p["name"] for p in PROFILES])
def test_each_input_dtype_reaches_executed(dtype_run, name):
    done, out = dtype_run
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(json.loads((out / "report.json").read_text()))[name]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]


def test_the_stored_inputs_hold_what_their_dtype_can(dtype_run):
    _, out = dtype_run
    records = records_by_profile(json.loads((out / "report.json").read_text()))
    case = records["mask-dynamo"]["input_cases"][0]
    mask = stored_input(out, records["mask-dynamo"], case, 1)
    assert mask.dtype == np.bool_ and mask.any() and not mask.all()
    half = stored_input(out, records["half-torchscript"], records["half-torchscript"]["input_cases"][0], 0)
    assert half.dtype == np.float16 and np.isfinite(half).all() and half.std() > 0.3
    codes = records["codes-dynamo"]
    signed = stored_input(out, codes, codes["input_cases"][0], 0)
    unsigned = stored_input(out, codes, codes["input_cases"][0], 1)
    assert signed.dtype == np.int8 and unsigned.dtype == np.uint8 and (unsigned >= 250).all()


def test_execute_replays_every_dtype_without_python(dtype_run, tmp_path):
    _, out = dtype_run
    done = run_cli("execute", out / "report.json", out / "report-artifacts", "--output", tmp_path / "x.json",
                   env=NO_PYTHON)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {r["status"] for r in json.loads((tmp_path / "x.json").read_text())["profiles"]} == {"passed"}


def test_an_int8_range_beyond_int8_is_refused_before_any_worker(tmp_path):
    bad = [entry("wide", "dynamo", "codes",
                 [{"name": "signed", "shape": [2, 4], "dtype": "int8", "range": [0, 300]},
                  {"name": "unsigned", "shape": [2, 4], "dtype": "uint8", "range": [0, 256]}], {})]
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", bad), "--output", tmp_path / "r.json",
                   env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "[0, 300) of the int8 input signed holds values an int8 cannot; int8 holds -128..127" in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_an_unknown_dtype_names_every_input_dtype_and_the_nearest(tmp_path):
    bad = [entry("typo", "dynamo", "half_in", [{"name": "x", "shape": [2, 6], "dtype": "bfloat61"}], {})]
    done = run_cli("run", "--profile-file", write_profiles(tmp_path / "p.json", bad), "--output", tmp_path / "r.json",
                   env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "(float32, float64, float16, bfloat16, int64, int32, int8, uint8, bool)" in done.stderr
    assert 'did you mean "bfloat16"?' in done.stderr
