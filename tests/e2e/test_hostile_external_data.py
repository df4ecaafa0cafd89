"""Issue 28, "Unhashed bytes are executed": external data ONNX Runtime does not take from memory.

ONNX Runtime is handed the verified bytes of the external files only for the main graph's initializers
(and main-graph Constants, which it turns into initializers); any other tensor with external data it reads
from a path relative to its working directory. Each test plants a hostile model (tests/e2e/external_models.py)
in a copy of a real torchscript run's record: its external file `w.bin` verified as zeros in the artifacts
(the record relisted, hashes consistent), and the "real" bytes, from which the model computes the record's
logits, in the working directory of the process. Every place but the served one must be refused as
load-error (exit 15) naming the tensor and where it sits, before any session exists (the spy library logs
none); the main-graph Constant must compute from the verified zeros (a mismatch), and from verified real
bytes pass; a uint8 tensor at `secret.txt` in an If branch must not copy the working directory's file into
a runtime matrix's stored outputs. doc/external-data.md states the rule.
"""
import json
import os
import subprocess
import sys

import onnx
import pytest

from conftest import BUILD, BUNDLED_ORT, CLI, require_runtime
from external_models import LOCATION, craft
from support import relist, spy_env
from test_external_data import copied, torchscript_run  # noqa: F401  (fixtures)

WAY_OUT = "re-save the model with the data inline or as a main-graph initializer"
WHERE = {
    "if-branch-initializer": 'tensor "layers.0.weight" (initializer "layers.0.weight" of subgraph "then" '
                             '(attribute "then_branch" of node "if" (If) in the main graph))',
    "loop-body-constant": 'tensor "layers.0.weight" (the tensor of attribute "value" of node '
                          '"const_layers.0.weight" (Constant) in subgraph "body" (attribute "body" of node "loop" '
                          '(Loop) in the main graph))',
    "sparse-initializer": 'tensor "layers.0.weight" (the values of sparse initializer "layers.0.weight" of the '
                          'main graph)',
    "function-constant": 'tensor "layers.0.weight" (the tensor of attribute "value" of node '
                         '"const_layers.0.weight" (Constant) in function "Net" (domain "local"))',
    "attribute-tensor": 'tensor "scale" (the tensor of attribute "value" of node "scale" (ConstantOfShape) in '
                        'the main graph)',
}
SECRET = b"S3cret: the working directory's file"


def planted(copied, kind, cwd, location=LOCATION, real_bytes_verified=False):
    """The copied record's model.onnx rebuilt as `kind`, its external file in the artifacts as zeros (or
    the real bytes) and relisted; the real bytes written in `cwd`. Returns (report, root, real bytes)."""
    report, root, folder = copied
    model, real = craft(kind, onnx.load(folder / "model.onnx"), location)
    onnx.save(model, folder / "model.onnx")
    (folder / location).write_bytes(real if real_bytes_verified else bytes(len(real)))
    onnx.checker.check_model(str(folder / "model.onnx"))  # (its shape inference types a sparse input sparse)
    relist(report, folder)
    cwd.mkdir(exist_ok=True)
    (cwd / location).write_bytes(real)
    return report, root, real


def cli_in(cwd, *args, env=None):
    """The real command line, started in `cwd`."""
    require_runtime()
    return subprocess.run([str(CLI.resolve()), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def execute_in(cwd, report, root, out, env=None):
    done = cli_in(cwd, "execute", report, root, "--output", out, env=env)
    return done, json.loads(out.read_text())["profiles"][0]


def assert_refused(record, where):
    load = record["stages"]["load"]
    assert record["failure"] == "load-error" and load["status"] == "failed", load
    error = load["detail"]["error"]
    assert error.startswith(where + ' keeps its data in the external file "'), error
    assert "relative to its working directory" in error and error.endswith(WAY_OUT), error
    assert record["stages"]["parity"]["status"] == "not_run"


@pytest.mark.parametrize("kind", sorted(WHERE))
def test_external_data_outside_the_main_graphs_initializers_is_refused_before_any_session(copied, tmp_path, kind):
    report, root, _ = planted(copied, kind, tmp_path / "cwd")
    spy, log = spy_env(tmp_path)
    done, record = execute_in(tmp_path / "cwd", report, root, tmp_path / "again.json", env=spy)
    assert done.returncode == 15, done.stdout + done.stderr
    assert_refused(record, WHERE[kind])
    assert not log.exists(), "no session may be created for a refused model"


def test_a_main_graph_constant_computes_from_the_verified_bytes_never_the_working_directorys(copied, tmp_path):
    model = copied[2] / "model.onnx"
    exported = model.read_bytes()
    report, root, _ = planted(copied, "main-graph-constant", tmp_path / "cwd")
    spy, log = spy_env(tmp_path)
    done, record = execute_in(tmp_path / "cwd", report, root, tmp_path / "zeros.json", env=spy)
    assert done.returncode == 16, done.stdout + done.stderr  # verified zeros: every logit is the bias-free 0
    assert record["stages"]["load"]["status"] == "passed" and record["failure"] == "mismatch"
    assert log.read_text().splitlines() == ["CreateSessionFromArray"], "the session came from memory, no path"
    model.write_bytes(exported)
    report, root, real = planted(copied, "main-graph-constant", tmp_path / "cwd", real_bytes_verified=True)
    (tmp_path / "cwd" / LOCATION).write_bytes(bytes(len(real)))
    done, record = execute_in(tmp_path / "cwd", report, root, tmp_path / "real.json")
    assert done.returncode == 0, done.stdout + done.stderr  # verified real bytes, zeros in the working directory
    assert record["status"] == "passed" and record["level"] == "executed"


def test_a_branch_tensor_at_secret_txt_does_not_copy_the_working_directorys_file_into_a_matrix(copied, tmp_path):
    report, root, _ = planted(copied, "secret-in-a-branch", tmp_path / "cwd", location="secret.txt")
    (tmp_path / "cwd" / "secret.txt").write_bytes(SECRET)
    out = tmp_path / "matrix.json"
    done = cli_in(tmp_path / "cwd", "matrix", report, root, "--output", out, "--onnxruntime", BUNDLED_ORT.resolve())
    assert done.returncode == 15, done.stdout + done.stderr
    (runtime,) = json.loads(out.read_text())["runtimes"]
    (record,) = runtime["records"]
    assert_refused(record, 'tensor "secret" (the tensor of attribute "value" of node "leak" (Constant) in '
                           'subgraph "then" (attribute "then_branch" of node "if" (If) in the main graph))')
    stored = [v for cases in runtime["outputs"].values() for case in cases for v in case["values"]]
    assert stored == [] and not {float(SECRET[0]), float(SECRET[1])} & set(stored)


PYTHON_EXECUTE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import nnx.export_conformance as ec
record = json.load(open(sys.argv[2]))["profiles"][0]
print(json.dumps(ec.execute(record, sys.argv[3])))
"""


def test_the_python_packages_execute_refuses_a_branch_initializer_too(copied, tmp_path):
    report, root, _ = planted(copied, "if-branch-initializer", tmp_path / "cwd")
    done = subprocess.run([sys.executable, "-c", PYTHON_EXECUTE, str(BUILD.resolve() / "python"), str(report),
                           str(root)], cwd=tmp_path / "cwd", capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr
    assert_refused(json.loads(done.stdout.splitlines()[-1]), WHERE["if-branch-initializer"])
