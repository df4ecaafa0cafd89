"""Parity against PyTorch itself (record-format §2, §4): the exported bytes are the §2 module's, the record's
errors are ONNX Runtime against torch's own output, the parity detail triangulates against the float64
oracle, and a failing parity names who is off (doc/reading-a-failure.md, "Reading the triangulation").

The byte-identity and error tests build §2's module HERE, from the spec's words (not from worker/), so
they hold the product to the spec rather than to itself. ONNX Runtime's outputs come from the onnxruntime
wheel in build/original-venv (scripts/install_original.sh; the same release as the bundled library), and
the published original is run there as a black box to compare bytes and numbers.
"""
from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import onnx
import pytest
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

from conftest import BUILD, REPO, fault_env, run_cli
from support import records_by_profile, rehash, sha256_of

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"
ORIGINAL_PYTHON = REPO / "build" / "original-venv" / "bin" / "python"


class SpecNet(torch.nn.Module):
    """§2: only `layers` registered; flatten first; functional activation and dropout."""

    def __init__(self, widths, dropout=0.0):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        self.p = dropout

    def forward(self, X):
        X = X.view(X.size(0), -1)
        for layer in self.layers[:-1]:
            X = F.relu(layer(X))
            X = F.dropout(X, p=self.p, training=self.training)
        return self.layers[-1](X)


def spec_net() -> SpecNet:
    net = SpecNet([4, 8, 2])
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for _, p in net.named_parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    return net.eval()


def case_input(shape, seed):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("profile", [TORCHSCRIPT, DYNAMO])
def test_model_onnx_is_byte_identical_to_the_spec_module_exported_by_real_torch(both_profiles, tmp_path, profile):
    done, report, _ = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    record = records_by_profile(report)[profile]
    path = tmp_path / "model.onnx"
    x = case_input((2, 4), 7)
    names = dict(input_names=["features"], output_names=["logits"], opset_version=17)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if profile == DYNAMO:
            torch.onnx.export(spec_net(), (x,), str(path), dynamic_shapes=({0: torch.export.Dim("batch", min=1)},),
                              dynamo=True, **names)
        else:
            torch.onnx.export(spec_net(), (x,), str(path), dynamic_axes={n: {0: "batch"} for n in ("features", "logits")},
                              dynamo=False, **names)
    listed = {f["path"]: f["sha256"] for f in record["artifacts"]["files"]}
    assert listed["model.onnx"] == sha256_of(path)
    # The graph holds the batch-dependent Reshape of the flatten.
    assert "Reshape" in {n.op_type for n in onnx.load(str(path), load_external_data=False).graph.node}


ORT_ERRORS = r"""
import json, sys
import numpy as np, onnxruntime as ort
model, cases = sys.argv[1], json.loads(sys.argv[2])
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
out = {}
for c in cases:
    x = np.frombuffer(bytes.fromhex(c["input"]), dtype="<f4").reshape(c["shape"])
    y = s.run(None, {"features": x})[0].astype(np.float64)
    ref = np.frombuffer(bytes.fromhex(c["torch"]), dtype="<f4").astype(np.float64).reshape(y.shape)
    err = np.abs(y - ref)
    out[c["name"]] = [float(err.max()), float((err / np.maximum(np.abs(ref), 1e-30)).max())]
print(json.dumps(out))
"""


@pytest.mark.parametrize("profile", [TORCHSCRIPT, DYNAMO])
def test_case_errors_are_onnx_runtime_against_torchs_own_output(both_profiles, profile):
    _, report, artifacts = both_profiles
    record = records_by_profile(report)[profile]
    net = spec_net()
    cases = []
    for c in record["input_cases"]:
        if c["expect"] != "match":
            continue
        x = case_input(c["shape"], c["seed"])
        with torch.no_grad():
            y = net(x)
        cases.append({"name": c["name"], "shape": c["shape"], "input": x.numpy().tobytes().hex(),
                      "torch": y.numpy().tobytes().hex()})
    done = subprocess.run([str(ORIGINAL_PYTHON), "-c", ORT_ERRORS, str(artifacts / profile / "model.onnx"),
                           json.dumps(cases)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    got = {c["name"]: [c["max_abs_error"], c["max_rel_error"]] for c in record["input_cases"] if c["expect"] == "match"}
    assert got == expected
    assert any(v[0] > 0 for v in got.values())  # torch and ONNX Runtime do differ in the last bits here


def test_records_equal_the_published_originals_bytes_and_errors(both_profiles, tmp_path):
    _, report, _ = both_profiles
    script = ("import json, sys, nnx.export_conformance as e\n"
              "print(json.dumps(e.run_profiles(sys.argv[1])))\n")
    done = subprocess.run([str(ORIGINAL_PYTHON), "-c", script, str(tmp_path / "original")], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    original = records_by_profile(json.loads(done.stdout.strip().splitlines()[-1]))
    for name, ours in records_by_profile(report).items():
        theirs = original[name]
        assert ours["artifacts"]["files"] == theirs["artifacts"]["files"], name
        assert [(c["name"], c["max_abs_error"], c["max_rel_error"]) for c in ours["input_cases"]] == \
               [(c["name"], c["max_abs_error"], c["max_rel_error"]) for c in theirs["input_cases"]], name


def test_the_parity_detail_triangulates_every_compared_case(both_profiles):
    _, report, _ = both_profiles
    for record in report["profiles"]:
        detail = record["stages"]["parity"]["detail"]
        assert detail["reference"] == "torch" and detail["weights_in_model"] is True
        compared = [c for c in record["input_cases"] if c["max_abs_error"] is not None]
        assert [t["case"] for t in detail["triangulation"]] == [c["name"] for c in compared]
        for t, c in zip(detail["triangulation"], compared):
            assert 0 <= t["margin"] <= 1
            assert t["margin"] >= c["max_abs_error"] / (1e-5 + 1e-4 * 10)  # never below err / loosest allowed
            for pair in ("runtime_vs_oracle", "reference_vs_oracle", "native_vs_reference"):
                assert set(t[pair]) == {"max_abs_error", "margin"} and 0 <= t[pair]["margin"] <= 1
            assert t["reference_vs_oracle"]["max_abs_error"] > 0  # float32 torch is not the float64 oracle


# --- blame: who is off when parity fails ------------------------------------------------------------------


def run_with_fault(tmp_path, fault):
    done = run_cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT, env=fault_env(fault))
    record = json.loads((tmp_path / "r.json").read_text())["profiles"][0]
    return done, record


@pytest.mark.parametrize("fault, blame", [
    ("corrupt-initializer", "weights"),     # a real corrupted initializer in the written model.onnx
    ("shift-outputs", "runtime-or-graph"),  # a real graph edited to add 1e-3 to the logits
    ("reference-off", "reference"),         # injected: nothing real makes PyTorch compute the wrong thing
    ("both-off", "both"),                   # the edited graph and the injected reference fault together
])
def test_a_failing_parity_blames_the_side_that_departs(tmp_path, fault, blame):
    done, record = run_with_fault(tmp_path, fault)
    assert done.returncode == 16, done.stdout + done.stderr
    detail = record["stages"]["parity"]["detail"]
    assert record["failure"] == "mismatch" and detail["blame"] == blame
    assert detail["weights_in_model"] is (blame != "weights")
    worst = lambda pair: max(t[pair]["margin"] for t in detail["triangulation"])  # noqa: E731
    assert (worst("runtime_vs_oracle") > 1) is (blame in ("weights", "runtime-or-graph", "both"))
    assert (worst("reference_vs_oracle") > 1) is (blame in ("reference", "both"))
    if blame == "weights":
        assert detail["weights_problem"].startswith("layers.0.weight [8, 4]")


@pytest.fixture()
def saved_torchscript(tmp_path):
    done = run_cli("run", "--output", tmp_path / "r.json", "--profile", TORCHSCRIPT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((tmp_path / "r.json").read_text())["profiles"][0], tmp_path / "r-artifacts"


def execute(record, root, tmp_path, *flags):
    (tmp_path / "in.json").write_text(json.dumps(record))
    done = run_cli("execute", tmp_path / "in.json", root, "--output", tmp_path / "out.json", *flags)
    return done, json.loads((tmp_path / "out.json").read_text())


def test_execute_blames_weights_for_a_corrupted_initializer(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    path = root / TORCHSCRIPT / "model.onnx"
    model = onnx.load(str(path))
    weight = model.graph.initializer[0]
    values = numpy_helper.to_array(weight).copy()
    values.reshape(-1)[0] += 0.5
    weight.CopyFrom(numpy_helper.from_array(values, weight.name))
    onnx.save(model, str(path))
    rehash(record, root)
    done, out = execute(record, root, tmp_path)
    assert done.returncode == 16, done.stdout + done.stderr
    assert out["stages"]["parity"]["detail"]["blame"] == "weights"


def test_execute_blames_the_graph_when_it_computes_something_else(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    path = root / TORCHSCRIPT / "model.onnx"
    model = onnx.load(str(path))
    relu = next(n for n in model.graph.node if n.op_type == "Relu")
    relu.CopyFrom(helper.make_node("Sigmoid", list(relu.input), list(relu.output), name=relu.name))
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(path))
    rehash(record, root)
    done, out = execute(record, root, tmp_path)
    assert done.returncode == 16, done.stdout + done.stderr
    detail = out["stages"]["parity"]["detail"]
    assert detail["blame"] == "runtime-or-graph" and detail["weights_in_model"] is True


def test_execute_uses_the_native_reference_and_says_so(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    done, out = execute(record, root, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out["stages"]["parity"]["detail"]["reference"] == "native"
    versions = out["versions"]
    assert versions["reference"] == "native" and versions["onnxruntime"] and versions["platform"]
    assert "torch" not in versions and "numpy" not in versions  # no PyTorch produced this evidence
    assert versions["exported_with"]["torch"] == record["versions"]["torch"]


def test_execute_with_the_torch_reference_equals_the_run(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    done, out = execute(record, root, tmp_path, "--reference", "torch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert out["stages"]["parity"]["detail"]["reference"] == "torch"
    assert out["versions"]["torch"] == record["versions"]["torch"] and out["versions"]["numpy"]
    assert [(c["max_abs_error"], c["max_rel_error"]) for c in out["input_cases"]] == \
           [(c["max_abs_error"], c["max_rel_error"]) for c in record["input_cases"]]


def test_execute_rejects_an_unknown_reference(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    (tmp_path / "in.json").write_text(json.dumps(record))
    done = run_cli("execute", tmp_path / "in.json", root, "--reference", "numpy")
    assert done.returncode == 2 and "--reference" in done.stderr


def test_the_python_execute_uses_the_torch_reference_by_default_like_the_original(saved_torchscript):
    import sys

    sys.path.insert(0, str(BUILD / "python"))
    import nnx.export_conformance as ec

    record, root = saved_torchscript
    by_torch = ec.execute(record, root)
    assert by_torch["status"] == "passed"
    assert by_torch["stages"]["parity"]["detail"]["reference"] == "torch" and by_torch["versions"]["torch"]
    assert [c["max_abs_error"] for c in by_torch["input_cases"]] == [c["max_abs_error"] for c in record["input_cases"]]
    native = ec.execute(record, root, reference="native")
    assert native["stages"]["parity"]["detail"]["reference"] == "native" and "torch" not in native["versions"]
    with pytest.raises(ec.UsageError, match="reference"):
        ec.execute(record, root, reference="numpy")


def test_execute_with_the_torch_reference_and_no_torch_is_exit_10_naming_it(saved_torchscript, tmp_path):
    record, root = saved_torchscript
    (tmp_path / "in.json").write_text(json.dumps(record))
    # The system's python3 has no torch: the worker starts, but cannot import it.
    done = run_cli("execute", tmp_path / "in.json", root, "--reference", "torch", env={"NNX_PYTHON": "/usr/bin/python3"})
    assert done.returncode == 10, done.stdout + done.stderr
    assert "torch reference is unavailable" in done.stderr and "torch" in done.stderr
