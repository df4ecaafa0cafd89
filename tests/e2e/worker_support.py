"""What the worker tests share (tests/e2e/test_worker*.py): the worker spoken to as the core speaks to
it (worker/PROTOCOL.md: requests on stdin, responses on fd 3), its pytest fixtures, and the feed-forward
model, weights and reference numbers its requests carry (independent of the worker's code). The faulty
stand-in is tests/fakes/faulty_worker.py, named by NNX_TEST_FAULT (conftest.fault_env)."""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import torch
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
        self.proc.stdin.write(encode_request(obj))
        self.proc.stdin.flush()

    def read_bytes(self, size: int, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while len(self.buffer) < size:
            left = deadline - time.monotonic()
            assert left > 0 and select.select([self.responses], [], [], left)[0], "a tensor frame did not arrive"
            chunk = os.read(self.responses, 1 << 20)
            assert chunk, "fd 3 closed inside a tensor frame"
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

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
        answer = json.loads(line)
        frames = [self.read_frame(timeout) for _ in range(answer.pop("frames", 0))]
        return resolve_frames(answer, frames)

    def read_frame(self, timeout: float) -> dict:
        magic, code, rank, zero, size = struct.unpack("<4sBBHQ", self.read_bytes(16, timeout))
        assert magic == b"NNXF" and zero == 0, "a tensor frame's header"
        shape = list(struct.unpack(f"<{rank}q", self.read_bytes(8 * rank, timeout)))
        return {"dtype": DTYPE_NAMES[code], "shape": shape, "data": self.read_bytes(size, timeout)}

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


# ------------------------------------------------------------------------------------------------
# tensor frames (worker/TENSORS.md, "Tensor frames"), written here independently of the worker's code


DTYPE_CODES = {torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int32: 6, torch.int64: 7, torch.bool: 9,
               torch.float16: 10, torch.float64: 11, torch.bfloat16: 16}
DTYPE_NAMES = {1: "float32", 2: "uint8", 3: "int8", 6: "int32", 7: "int64", 9: "bool", 10: "float16",
               11: "float64", 16: "bfloat16"}


class Frame:
    """A tensor a request carries: a reference {"name", "frame"} in its line, its bytes a frame after it."""

    def __init__(self, name: str, tensor: torch.Tensor):
        self.name, self.tensor = name, tensor.detach().contiguous()

    def frame(self) -> bytes:
        t = self.tensor
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes()
        return struct.pack("<4sBBHQ", b"NNXF", DTYPE_CODES[t.dtype], t.dim(), 0, len(raw)) + \
            struct.pack(f"<{t.dim()}q", *t.shape) + raw


def stored(folder: Path, relative: str, name: str, tensor: torch.Tensor) -> dict:
    """`tensor` written as the core writes a module's stored tensor, an ONNX TensorProto file (by onnx's own
    writer) at <folder>/<relative>; its {name, file} entry in a module_export request (worker/TENSORS.md,
    "Case tensors as files")."""
    from onnx import numpy_helper

    path = Path(folder) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(numpy_helper.from_array(tensor.detach().numpy(), name).SerializeToString())
    return {"name": name, "file": relative}


def unstored(folder: Path, entry: dict) -> torch.Tensor:
    """The tensor of a stored output the worker's child wrote ({name, dtype, shape, file}), read by onnx's own
    reader and checked against what the entry says."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load_tensor(str(Path(folder) / entry["file"]))
    array = numpy_helper.to_array(proto)
    assert proto.name == entry["name"] and list(array.shape) == entry["shape"], (proto.name, array.shape, entry)
    return torch.from_numpy(array.copy())


def encode_request(obj) -> bytes:
    """The request's line (its Frames as references, "frames" their count) and its frames."""
    frames = []

    def lift(value):
        if isinstance(value, Frame):
            frames.append(value)
            return {"name": value.name, "frame": len(frames) - 1}
        if isinstance(value, dict):
            return {k: lift(v) for k, v in value.items()}
        if isinstance(value, list):
            return [lift(v) for v in value]
        return value

    line = lift(obj)
    if frames and isinstance(line, dict):
        line["frames"] = len(frames)
    return (json.dumps(line) + "\n").encode() + b"".join(f.frame() for f in frames)


def resolve_frames(value, frames: list):
    """The answer with each reference {"name", "frame"} replaced by {"name", "dtype", "shape", "data": raw}."""
    if isinstance(value, dict):
        if value.keys() == {"name", "frame"}:
            return {"name": value["name"], **frames[value["frame"]]}
        return {k: resolve_frames(v, frames) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_frames(v, frames) for v in value]
    return value


def in_process(request: dict) -> dict:
    """The request as the worker's loop hands it to an op (through the worker's own wire reader)."""
    import io

    import nnx_worker_tensors  # worker/ is on sys.path for the in-process tests

    return nnx_worker_tensors.read_message(io.BytesIO(encode_request(request)))


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
        "parameters": [Frame(n, t) for n, t in weights().items()],
        "example_input": Frame("example", example),
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
