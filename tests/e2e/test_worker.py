"""The real Python worker (worker/nnx_worker.py), spoken to over its protocol (worker/PROTOCOL.md).

Runs the worker with the project's virtualenv (torch, onnx, onnxscript; ONNX Runtime's Python package is
NOT installed there, so exported numbers are checked with onnx.reference.ReferenceEvaluator against the
torch model in eval mode). Faults are used only for outcomes nothing else produces on demand: an exporter
that raises or mutates the model, a file the checker refuses, shifted / non-finite / failing graphs, a
worker that crashes, hangs, answers garbage or floods its stdout. The product's worker has none: a faulty
worker is the stand-in tests/fakes/faulty_worker.py (the real worker with a fault of tests/fakes/faults.py
named by NNX_TEST_FAULT, conftest.fault_env), whose export answers also name the fault in "fault".
"""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from conftest import fault_env

REPO = Path(__file__).resolve().parents[2]
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
WORKER = REPO / "worker" / "nnx_worker.py"
PYTHON = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
EXPORTERS = ("torchscript", "dynamo")
CONFIG = {"net": "feed_fwd", "input_dim": 4, "hidden_dims": [8], "output_dim": 2, "activation": "relu",
          "dropout": 0.0}
BATCHES = (1, 2, 3, 7)


# ------------------------------------------------------------------------------------------------
# speaking the protocol


class Worker:
    """The worker as the core runs it: requests on stdin, responses on fd 3, stdout+stderr to a file. With a
    fault (a name, or "" for none), the stand-in worker tests/fakes/faulty_worker.py; else the real worker."""

    def __init__(self, fault: str | None = None, pythonpath: str | None = None):
        env = dict(os.environ)
        env.pop("NNX_TEST_FAULT", None)
        env.pop("NNX_WORKER_SCRIPT", None)
        script = WORKER
        if fault is not None:
            env.update(fault_env(fault))
            script = Path(env["NNX_WORKER_SCRIPT"])
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        read_fd, write_fd = os.pipe()
        self.log = tempfile.TemporaryFile()

        def at_fd_3():
            os.dup2(write_fd, 3)
            os.set_inheritable(3, True)

        self.proc = subprocess.Popen([PYTHON, str(script)], stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT, env=env, preexec_fn=at_fd_3, close_fds=False)
        os.close(write_fd)
        self.responses = read_fd
        self.buffer = b""

    def send(self, obj) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def read_line(self, timeout: float) -> bytes | None:
        """One response line; None when nothing arrives in time; b"" when fd 3 closed."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.responses], [], [], left)[0]:
                return None
            chunk = os.read(self.responses, 1 << 16)
            if not chunk:
                return b""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def request(self, obj, timeout: float = 300.0) -> dict:
        self.send(obj)
        line = self.read_line(timeout)
        assert line, f"no response to {obj.get('op')!r}; log:\n{self.log_text()[-3000:]}"
        return json.loads(line)

    def log_text(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.responses)
        self.log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    assert w.close() == 0


@pytest.fixture(scope="module")
def _fault_workers():
    cache = {}
    yield cache
    for w in cache.values():
        w.close()


@pytest.fixture
def faulty(_fault_workers):
    """faulty(fault) -> the stand-in worker with that fault (None: the real worker), shared by the tests of
    that fault (torch is imported once per fault); a fresh one for faults that end the worker and for custom
    PYTHONPATHs."""
    fresh = []

    def start(fault, pythonpath=None):
        if pythonpath is not None or fault in ("crash", "hang", "garbage"):
            fresh.append(Worker(fault, pythonpath=pythonpath))
            return fresh[-1]
        if fault not in _fault_workers or _fault_workers[fault].proc.poll() is not None:
            _fault_workers[fault] = Worker(fault)
        return _fault_workers[fault]

    yield start
    for w in fresh:
        w.close()


# ------------------------------------------------------------------------------------------------
# the model, the weights and the reference numbers (independent of the worker's code)


class ReferenceNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 8), torch.nn.Linear(8, 2)])
        self.activation = torch.nn.ReLU()

    def forward(self, x):
        return self.layers[1](self.activation(self.layers[0](x)))


def b64(t: torch.Tensor) -> str:
    return base64.b64encode(t.detach().contiguous().numpy().astype("<f4").tobytes()).decode()


def weights() -> dict:
    g = torch.Generator().manual_seed(0)
    shapes = [("layers.0.weight", [8, 4]), ("layers.0.bias", [8]), ("layers.1.weight", [2, 8]),
              ("layers.1.bias", [2])]
    return {name: torch.randn(shape, generator=g) * 0.5 for name, shape in shapes}


def reference_model() -> ReferenceNet:
    net = ReferenceNet()
    net.load_state_dict(weights())
    return net.eval()


def case_input(batch: int, width: int = 4, seed: int | None = None) -> torch.Tensor:
    return torch.randn([batch, width], generator=torch.Generator().manual_seed(1000 + batch if seed is None else seed))


def export_request(exporter: str, output_dir: Path, dynamic_batch: bool = True) -> dict:
    example = torch.randn([2, 4], generator=torch.Generator().manual_seed(7))
    return {
        "op": "export", "exporter": exporter,
        "options": {"exporter": exporter, "dynamo": exporter == "dynamo", "opset_version": 17,
                    "dynamic_batch": dynamic_batch, "export_batch": 2, "input_names": ["features"],
                    "output_names": ["logits"]},
        "model": dict(CONFIG),
        "parameters": [{"name": n, "shape": list(t.shape), "data": b64(t)} for n, t in weights().items()],
        "example_input": {"shape": [2, 4], "data": b64(example)},
        "output_dir": str(output_dir), "model_file": "model.onnx",
    }


def run_onnx(path: Path, x: torch.Tensor) -> np.ndarray:
    (out,) = ReferenceEvaluator(str(path)).run(None, {"features": x.numpy()})
    return out


def native(x: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        return reference_model()(x).numpy()


# ------------------------------------------------------------------------------------------------
# ping, protocol errors, dependencies


def test_ping_and_protocol_errors(worker):
    assert worker.request({"op": "ping"}) == {"ok": True}
    unknown = worker.request({"op": "frobnicate"})
    assert unknown["ok"] is False and "frobnicate" in unknown["error"]
    worker.proc.stdin.write(b"{not json\n")
    worker.proc.stdin.flush()
    bad = json.loads(worker.read_line(30))
    assert bad["ok"] is False and "not JSON" in bad["error"]
    req = export_request("torchscript", Path(tempfile.mkdtemp()))
    req["parameters"][0]["shape"] = [4, 8]
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
            "parameters": [{"name": n, "shape": list(t.shape), "data": b64(t)} for n, t in parameters.items()],
            "inputs": [{"name": "case", "shape": list(x.shape), "data": b64(x)}]}


def reference_output(response: dict) -> np.ndarray:
    assert response["ok"] is True, response
    (out,) = response["outputs"]
    return np.frombuffer(base64.b64decode(out["data"]), dtype="<f4").reshape(out["shape"])


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

    float_shape = reference_request(weights(), x)
    float_shape["parameters"][0]["shape"] = [8.0, 4]
    refused = worker.request(float_shape)
    assert refused["ok"] is False and "layers.0.weight" in refused["error"], refused
    assert np.array_equal(reference_output(worker.request(reference_request(weights(), x))), expected)


def test_a_large_reference_network_is_not_kept_after_its_request():
    reference = _import_worker_module().nnx_worker_reference  # the reference op and the network it keeps
    wide = dict(CONFIG, hidden_dims=[1 << 16])  # 458,754 float32 parameters: 2.4 MB of base64
    g = torch.Generator().manual_seed(3)
    parameters = {"layers.0.weight": torch.randn([1 << 16, 4], generator=g), "layers.0.bias": torch.zeros(1 << 16),
                  "layers.1.weight": torch.randn([2, 1 << 16], generator=g), "layers.1.bias": torch.zeros(2)}
    x = case_input(2)
    small = reference.op_reference(reference_request(weights(), x))
    assert np.array_equal(reference_output(small), native(x))
    assert reference._last_reference is not None, "a small network is kept for the next request"
    large = reference_request(parameters, x)
    large["model"] = wide
    assert sum(len(p["data"]) for p in large["parameters"]) >= reference.KEEP_REFERENCE_BYTES
    assert reference_output(reference.op_reference(large)).shape == (2, 2)
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
    nw.give_mixed_mode_and_gradients(model, x)
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
    nw.give_mixed_mode_and_gradients(model, case_input(2, seed=7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (case_input(2, seed=7),), str(tmp_path / "m.onnx"), dynamo=False,
                          opset_version=17)
    assert all(m.training for m in model.modules())


# ------------------------------------------------------------------------------------------------
# faults (the stand-in worker tests/fakes/faulty_worker.py; each yields its documented effect)


def test_no_fault_in_the_stand_in_is_the_real_worker(faulty, tmp_path):
    res = faulty("").request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["exception"] is None and res["changed"] == [] and res["fault"] is None


def test_fault_exporter_raises(faulty, tmp_path):
    res = faulty("exporter-raises").request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["fault"] == "exporter-raises"
    assert res["exception"].startswith("RuntimeError: ")
    assert res["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert res["wrote_model"] is False


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_mutate_parameter(faulty, tmp_path, exporter):
    res = faulty("mutate-parameter").request(export_request(exporter, tmp_path))
    assert res["exception"] is None and res["fault"] == "mutate-parameter"
    assert res["changed"] == ["parameters"]
    assert res["model_state"] == {"parameters": False, "gradients": True, "modes": True}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_checker_refuses(faulty, tmp_path, exporter):
    w = faulty("checker-refuses")
    assert w.request(export_request(exporter, tmp_path))["wrote_model"] is True
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] and check["error"].startswith("ValidationError: ")
    assert "nnx_fault_no_such_value" in check["error"]


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_shift_outputs(faulty, tmp_path, exporter):
    w = faulty("shift-outputs")
    assert w.request(export_request(exporter, tmp_path))["model_state"]["parameters"] is True
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None and check["outputs"][0]["shape"] == ["batch", 2]
    for batch in BATCHES:
        x = case_input(batch)
        got, want = run_onnx(tmp_path / "model.onnx", x), native(x)
        np.testing.assert_allclose(got, want + np.float32(1e-3), rtol=1e-5, atol=1e-6)
        assert np.all(np.abs(got - want) > 9e-4)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_nonfinite_outputs(faulty, tmp_path, exporter):
    w = faulty("nonfinite-outputs")
    w.request(export_request(exporter, tmp_path))
    assert w.request({"op": "check", "path": str(tmp_path / "model.onnx")})["error"] is None
    assert np.isnan(run_onnx(tmp_path / "model.onnx", case_input(3))).all()


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_fault_runtime_fails(faulty, tmp_path, exporter):
    w = faulty("runtime-fails")
    w.request(export_request(exporter, tmp_path))
    check = w.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None
    assert check["inputs"][0]["shape"] == ["batch", "nnx_fault_width"], "any feature width is accepted"
    for x in (case_input(2), case_input(3, width=5, seed=2000)):
        with pytest.raises(Exception):
            run_onnx(tmp_path / "model.onnx", x)


def test_fault_crash(faulty, tmp_path):
    w = faulty("crash")
    w.send(export_request("torchscript", tmp_path))
    assert w.read_line(60) == b"", "fd 3 closes without an answer"
    assert w.proc.wait(timeout=30) == -signal.SIGKILL


def test_fault_hang(faulty, tmp_path):
    w = faulty("hang")
    assert w.request({"op": "ping"}) == {"ok": True}
    w.send(export_request("torchscript", tmp_path))
    assert w.read_line(3) is None
    assert w.proc.poll() is None
    w.proc.kill()


def test_fault_garbage(faulty, tmp_path):
    w = faulty("garbage")
    w.send(export_request("torchscript", tmp_path))
    line = w.read_line(60)
    with pytest.raises(ValueError):
        json.loads(line)


def test_fault_flood(faulty, tmp_path):
    w = faulty("flood")
    res = w.request(export_request("torchscript", tmp_path))
    assert res["ok"] is True and res["exception"] is None and res["fault"] == "flood"
    assert os.fstat(w.log.fileno()).st_size >= 64 << 20
    assert "flood" not in res["log"], "the flood goes to the core's log pipe, not into the export log"


def test_unknown_fault_is_refused(faulty, tmp_path):
    res = faulty("no-such-fault").request(export_request("torchscript", tmp_path))
    assert res["ok"] is False and "no-such-fault" in res["error"]


# ------------------------------------------------------------------------------------------------
# external data


def test_external_data_of_a_resaved_export(worker, tmp_path):
    assert worker.request(export_request("torchscript", tmp_path))["wrote_model"] is True
    model = onnx.load(str(tmp_path / "model.onnx"))
    onnx.save_model(model, str(tmp_path / "external.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    check = worker.request({"op": "check", "path": str(tmp_path / "external.onnx")})
    assert check["error"] is None and check["external_data"] == ["weights.bin"]
    np.testing.assert_allclose(run_onnx(tmp_path / "external.onnx", case_input(3)), native(case_input(3)),
                               rtol=1e-4, atol=1e-5)


def _externalize(tensor: TensorProto, folder: Path, location: str) -> None:
    data = tensor.raw_data
    (folder / location).write_bytes(data)
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", str(len(data)))):
        tensor.external_data.add(key=key, value=value)


def test_external_data_everywhere(worker, tmp_path):
    """Initializers, sparse initializers, node attribute tensors and tensors of nested subgraphs."""
    vec = numpy_helper.from_array(np.arange(3, dtype=np.float32), "init")
    attr = numpy_helper.from_array(np.ones(3, dtype=np.float32), "attr_value")
    deep = numpy_helper.from_array(np.full(3, 2.0, dtype=np.float32), "deep_value")
    other = numpy_helper.from_array(np.full(3, 3.0, dtype=np.float32), "other_value")
    sparse_values = numpy_helper.from_array(np.array([5.0], dtype=np.float32), "sparse")
    for tensor, location in ((vec, "init.bin"), (attr, "attr.bin"), (deep, "deep.bin"), (other, "other.bin"),
                             (sparse_values, "sparse.bin")):
        _externalize(tensor, tmp_path, location)
    sparse = helper.make_sparse_tensor(sparse_values, numpy_helper.from_array(np.array([1], dtype=np.int64)), [3])

    out3 = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [3])  # noqa: E731
    inner_then = helper.make_graph([helper.make_node("Constant", [], ["deep"], value=deep)], "inner_then", [],
                                   [out3("deep")])
    inner_else = helper.make_graph([helper.make_node("Constant", [], ["other"], value=other)], "inner_else", [],
                                   [out3("other")])
    # then-branch holds a second If: the deepest tensor is two subgraph levels down.
    then_branch = helper.make_graph(
        [helper.make_node("If", ["cond"], ["nested"], then_branch=inner_then, else_branch=inner_else)],
        "then_branch", [], [out3("nested")])
    else_branch = helper.make_graph([helper.make_node("Identity", ["init"], ["plain"])], "else_branch", [],
                                    [out3("plain")])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], value=attr),
         helper.make_node("If", ["cond"], ["branch"], then_branch=then_branch, else_branch=else_branch),
         helper.make_node("Add", ["c", "branch"], ["y"])],
        "external_everywhere",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [out3("y")],
        initializer=[vec],
        sparse_initializer=[sparse])
    graph.sparse_initializer[0].values.name = "s"  # the sparse initializer's name (no op of opset 17 reads it)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(tmp_path / "model.onnx"))
    check = worker.request({"op": "check", "path": str(tmp_path / "model.onnx")})
    assert check["error"] is None, check["error"]
    assert check["external_data"] == ["attr.bin", "deep.bin", "init.bin", "other.bin", "sparse.bin"]
    assert check["opset"] == {"ai.onnx": 17}
    assert check["inputs"] == [{"name": "cond", "dtype": "bool", "shape": []}]
