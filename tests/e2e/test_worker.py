"""The real Python worker (worker/nnx_worker.py), spoken to over its protocol (worker/PROTOCOL.md): ping and
protocol errors, dependencies, export and check with the numbers checked by onnx.reference.ReferenceEvaluator
against the torch model in eval mode (ONNX Runtime's Python package is NOT in the project's virtualenv), the
reference forward, and the careful to_onnx in process. What the worker tests share is tests/e2e/worker_support.py;
the faults and external data are tests/e2e/test_worker_faults.py."""

from __future__ import annotations

import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from worker_support import _fault_workers, faulty, worker  # noqa: F401 (fixtures)
from worker_support import (BATCHES, CONFIG, EXPORTERS, REPO, Frame, ReferenceNet, case_input, export_request,
                            in_process, native, run_onnx, weights)


def test_ping_and_protocol_errors(worker):
    assert worker.request({"op": "ping"}) == {"ok": True}
    unknown = worker.request({"op": "frobnicate"})
    assert unknown["ok"] is False and "frobnicate" in unknown["error"]
    worker.proc.stdin.write(b"{not json\n")
    worker.proc.stdin.flush()
    bad = json.loads(worker.read_line(30))
    assert bad["ok"] is False and "not JSON" in bad["error"]
    req = export_request("torchscript", Path(tempfile.mkdtemp()))
    req["parameters"][0] = Frame("layers.0.weight", weights()["layers.0.weight"].t())
    mismatch = worker.request(req)
    assert mismatch["ok"] is False and "layers.0.weight" in mismatch["error"]
    req = export_request("torchscript", Path(tempfile.mkdtemp()))
    req["options"]["dynamo"] = True
    assert worker.request(req)["ok"] is False
    assert worker.request({"op": "ping"}) == {"ok": True}, "the worker keeps serving after refusals"


def test_dependencies_lists_versions(worker):
    import onnxscript

    res = worker.request({"op": "dependencies", "modules": ["torch", "onnx", "onnxscript"]})
    assert res["ok"] is True and res["problems"] == []
    assert res["versions"] == {"torch": torch.__version__, "onnx": onnx.__version__,
                               "onnxscript": onnxscript.__version__}
    env = res["environment"]
    assert env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["numpy"] == np.__version__ and env["torch"] == torch.__version__
    assert env["onnx"] == onnx.__version__ and env["onnxscript"] == onnxscript.__version__
    assert isinstance(env["platform"], str) and env["platform"]


def test_dependencies_reports_missing_and_broken_modules(faulty, tmp_path):
    (tmp_path / "nnx_broken_mod.py").write_text("raise ImportError('boom: half installed')\n")
    (tmp_path / "nnx_exiting_mod.py").write_text("raise SystemExit(3)\n")
    # A torch that fails at import: the worker still starts (it imports torch only for an export).
    (tmp_path / "torch.py").write_text("raise RuntimeError('broken torch build')\n")
    w = faulty(None, pythonpath=str(tmp_path))
    assert w.request({"op": "ping"}) == {"ok": True}
    res = w.request({"op": "dependencies",
                     "modules": ["onnx", "nnx_no_such_mod", "nnx_broken_mod", "nnx_exiting_mod", "torch"]})
    assert res["ok"] is True
    assert list(res["versions"]) == ["onnx"]
    assert res["problems"] == [
        "nnx_no_such_mod: ModuleNotFoundError: No module named 'nnx_no_such_mod'; "
        "install with: pip install nnx_no_such_mod",
        "nnx_broken_mod: ImportError: boom: half installed; install with: pip install nnx_broken_mod",
        "nnx_exiting_mod: SystemExit: 3; install with: pip install nnx_exiting_mod",
        "torch: RuntimeError: broken torch build; install with: pip install torch",
    ]
    export = w.request(export_request("torchscript", tmp_path / "out"))
    assert export["ok"] is False and "torch is not importable" in export["error"]


# ------------------------------------------------------------------------------------------------
# export + check, both exporters


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_export_check_and_numbers(worker, tmp_path, exporter):
    started = time.monotonic()
    res = worker.request(export_request(exporter, tmp_path))
    seconds = time.monotonic() - started
    print(f"{exporter}: export {seconds:.2f} s; warnings {res['warnings']}")
    assert res["ok"] is True and res["exception"] is None, res
    assert res["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert res["changed"] == [] and res["wrote_model"] is True
    assert set(res) == {"ok", "exception", "log", "warnings", "changed", "model_state", "wrote_model", "files"}, \
        "the product's worker answers the documented fields only (no test fault field)"
    assert "model.onnx" in res["files"] and (tmp_path / "model.onnx").is_file()
    assert res["files"] == sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert res["warnings"] == sorted(set(res["warnings"]))
    if exporter == "torchscript":
        assert any(w.startswith("DeprecationWarning: You are using the legacy TorchScript-based ONNX export")
                   for w in res["warnings"])

    check = worker.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["ok"] is True and check["error"] is None, check
    assert check["opset"]["ai.onnx"] == 17
    assert check["inputs"] == [{"name": "features", "dtype": "float", "shape": ["batch", 4]}]
    assert check["outputs"] == [{"name": "logits", "dtype": "float", "shape": ["batch", 2]}]
    assert check["producer"].startswith("pytorch ")
    assert isinstance(check["ir_version"], int)
    assert check["external_data"] == []
    print(f"{exporter}: opset {check['opset']}, ir {check['ir_version']}, producer {check['producer']!r}, "
          f"files {res['files']}")

    for batch in BATCHES:
        x = case_input(batch)
        np.testing.assert_allclose(run_onnx(tmp_path / "model.onnx", x), native(x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_static_batch_when_not_dynamic(worker, tmp_path, exporter):
    res = worker.request(export_request(exporter, tmp_path, dynamic_batch=False))
    assert res["ok"] is True and res["exception"] is None and res["wrote_model"] is True
    check = worker.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None
    assert check["inputs"][0]["shape"] == [2, 4]
    assert check["outputs"][0]["shape"] == [2, 2]


def test_check_of_a_missing_file(worker, tmp_path):
    check = worker.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["ok"] is True and check["error"]
    assert check["opset"] is None and check["inputs"] is None and check["external_data"] is None


# ------------------------------------------------------------------------------------------------
# reference: the PyTorch forward, from each request's own parameters


def reference_request(parameters: dict, x: torch.Tensor) -> dict:
    return {"op": "reference", "model": dict(CONFIG),
            "parameters": [Frame(n, t) for n, t in parameters.items()],
            "inputs": [Frame("case", x)]}


def reference_output(response: dict) -> np.ndarray:
    assert response["ok"] is True, response
    (out,) = response["outputs"]
    if not isinstance(out, dict):  # an op called in process answers with the worker's own wire tensors
        out = {"dtype": out.dtype, "shape": out.shape, "data": bytes(out.data)}
    assert out["dtype"] == "float32", out["dtype"]
    return np.frombuffer(out["data"], dtype="<f4").reshape(out["shape"])


def test_reference_forwards_each_requests_own_parameters(worker):
    """The worker keeps the last reference network for the next request of the same model: one whose
    parameters differ in a value, or only in a type, is not served from it."""
    x = case_input(3)
    doubled = {name: t * 2 for name, t in weights().items()}
    expected = native(x)
    net = ReferenceNet()
    net.load_state_dict(doubled)
    with torch.no_grad():
        expected_doubled = net.eval()(x).numpy()
    assert not np.array_equal(expected, expected_doubled)

    first = reference_output(worker.request(reference_request(weights(), x)))
    assert np.array_equal(first, expected), "the worker's forward is PyTorch's, bit for bit"
    assert np.array_equal(reference_output(worker.request(reference_request(doubled, x))), expected_doubled)
    again = reference_output(worker.request(reference_request(weights(), x)))
    assert again.tobytes() == first.tobytes()
    assert np.array_equal(reference_output(worker.request(reference_request(weights(), x))), expected)

    float64_weight = reference_request(weights(), x)
    float64_weight["parameters"][0] = Frame("layers.0.weight", weights()["layers.0.weight"].double())
    refused = worker.request(float64_weight)
    assert refused["ok"] is False and "layers.0.weight" in refused["error"], refused
    assert np.array_equal(reference_output(worker.request(reference_request(weights(), x))), expected)


def test_a_large_reference_network_is_not_kept_after_its_request():
    reference = _import_worker_module().nnx_worker_reference  # the reference op and the network it keeps
    wide = dict(CONFIG, hidden_dims=[1 << 16])  # 458,754 float32 parameters: 1.8 MB
    g = torch.Generator().manual_seed(3)
    parameters = {"layers.0.weight": torch.randn([1 << 16, 4], generator=g), "layers.0.bias": torch.zeros(1 << 16),
                  "layers.1.weight": torch.randn([2, 1 << 16], generator=g), "layers.1.bias": torch.zeros(2)}
    x = case_input(2)
    small = reference.op_reference(in_process(reference_request(weights(), x)))
    assert np.array_equal(reference_output(small), native(x))
    assert reference._last_reference is not None, "a small network is kept for the next request"
    large = reference_request(parameters, x)
    large["model"] = wide
    assert sum(p.tensor.numel() * 4 for p in large["parameters"]) >= reference.KEEP_REFERENCE_BYTES
    assert reference_output(reference.op_reference(in_process(large))).shape == (2, 2)
    assert reference._last_reference is None, "the large network and its text are let go"


# ------------------------------------------------------------------------------------------------
# the careful to_onnx (in process): the mixed mode and the gradients survive


def _import_worker_module():
    sys.path.insert(0, str(REPO / "worker"))
    try:
        import nnx_worker
    finally:
        sys.path.pop(0)
    return nnx_worker


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_to_onnx_keeps_each_modules_mode_and_the_gradients(tmp_path, exporter):
    nw = _import_worker_module()
    options = {"dynamo": exporter == "dynamo", "dynamic_batch": True, "opset_version": 17,
               "input_names": ["features"], "output_names": ["logits"]}
    model = nw.feedfwd_class()(4, [8], 2, "relu", 0.0)
    x = case_input(2, seed=7)
    nw.pin_root_train_layers_eval_then_cross_entropy_grads(model, x)
    before = nw.snapshot(model)
    assert [m for m in before["modes"] if not m[1]] == [("layers", False), ("layers.0", False),
                                                         ("layers.1", False)]
    assert all(g is not None for g in before["gradients"].values())
    seen = {}
    real_export = torch.onnx.export

    def spy(m, *args, **kwargs):  # the model must be in eval mode (dropout off) while exported
        seen["modes"] = {name: sub.training for name, sub in m.named_modules()}
        return real_export(m, *args, **kwargs)

    torch.onnx.export = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nw.to_onnx(model, x, str(tmp_path / "model.onnx"), options)
    finally:
        torch.onnx.export = real_export
    assert not any(seen["modes"].values())
    assert nw.snapshot(model) == before


def test_legacy_exporter_alone_would_break_the_mixed_mode(tmp_path):
    """Why to_onnx restores per-module flags: the legacy exporter resets every module to the top flag."""
    nw = _import_worker_module()
    model = nw.feedfwd_class()(4, [8], 2, "relu", 0.0)
    nw.pin_root_train_layers_eval_then_cross_entropy_grads(model, case_input(2, seed=7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (case_input(2, seed=7),), str(tmp_path / "m.onnx"), dynamo=False,
                          opset_version=17)
    assert all(m.training for m in model.modules())


# ------------------------------------------------------------------------------------------------
