"""The worker's module profile ops (worker/PROTOCOL.md, "Module profiles"), spoken to over the real protocol
(requests on stdin, answers on fd 3) with real torch models (tests/models/worker_models.py) and both real
exporters. Each module runs in a forked child of the worker: these tests prove that its answers are right,
that a dying or misbehaving module is reported without losing the worker, and that two modules never see
each other's globals. The one fault (mutate-buffer) comes from tests/fakes/faulty_worker.py.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import torch

from worker_support import Frame, Worker, stored, unstored

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "tests" / "models" / "worker_models.py"
EXPORTERS = ("torchscript", "dynamo")
DTYPES = {"float32": "<f4", "float64": "<f8", "int64": "<i8", "int32": "<i4", "bool": "|b1"}


def unwire(entry):
    """A tensor a module_reference answer carries as a frame."""
    return torch.from_numpy(np.frombuffer(entry["data"], dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"]).copy())


def request(factory, specs, dims, example, cases, out, exporter="torchscript", names=None, path=MODELS):
    """A module_export request: its example and each case's inputs written as stored tensor files in `out`, each
    case's outputs and oracle to be written beside them (worker/TENSORS.md, "Case tensors as files")."""
    return {"op": "module_export", "exporter": exporter, "opset_version": 17,
            "factory": f"{Path(path).name}:{factory}" if path else factory,
            "factory_path": str(path) if path else None, "inputs": specs, "dims": dims, "output_names": names,
            "example": [stored(out, f"example/input_{j}.pb", s["name"], t) for j, (s, t) in enumerate(zip(specs, example))],
            "cases": [{"name": n, "inputs": [stored(out, f"test_data_set_{k}/input_{j}.pb", s["name"], t)
                                             for j, (s, t) in enumerate(zip(specs, c))],
                       "outputs_to": f"test_data_set_{k}", "oracle_to": f"oracle_data_set_{k}"}
                      for k, (n, c) in enumerate(cases)],
            "output_dir": str(out), "model_file": "model.onnx"}


IMAGE = [{"name": "image", "shape": ["batch", 3, 16, 16], "dtype": "float32"}]
BATCH = [["batch", [2, 1, 3]]]


def image_request(out, exporter="torchscript", factory="conv_bn", path=MODELS):
    g = torch.Generator().manual_seed(1)
    cases = [("batch-1", [torch.randn(1, 3, 16, 16, generator=g)]), ("batch-3", [torch.randn(3, 3, 16, 16, generator=g)])]
    return request(factory, IMAGE, BATCH, [torch.randn(2, 3, 16, 16, generator=g)], cases, out, exporter, path=path), cases


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    # The parent's own thread pool has run before the first fork (the deadlock a fork can meet).
    w.request({"op": "dependencies", "modules": ["torch", "onnx", "onnxscript"]})
    yield w
    assert w.close() == 0


def direct(factory, inputs):
    import importlib.util

    spec = importlib.util.spec_from_file_location("worker_models_direct", MODELS)
    holder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(holder)
    module = getattr(holder, factory)().eval()
    with torch.no_grad():
        return module, module(*inputs)


def state_sha256(module):
    digest = hashlib.sha256()
    for name, value in module.state_dict().items():
        t = value.detach().contiguous()
        digest.update(f"{name}|{str(t.dtype).replace('torch.', '')}|{list(t.shape)}|".encode())
        digest.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_conv_batchnorm_module_exports_with_references_oracle_and_a_clean_state(worker, tmp_path, exporter):
    req, cases = image_request(tmp_path / "conv", exporter)
    answer = worker.request(req)
    assert answer["ok"] and answer["exception"] is None and answer["import_error"] is None, answer
    assert answer["wrote_model"] and (tmp_path / "conv" / "model.onnx").is_file()
    assert answer["changed"] == [] and answer["changed_entries"] == []
    assert answer["model_state"] == {"parameters": True, "gradients": True, "modes": True}
    assert answer["dims_in_graph"] == {"batch": "dynamic"}
    assert answer["graph"]["inputs"] == [{"name": "image", "dtype": "float", "shape": ["batch", 3, 16, 16]}]
    assert answer["output_names"] == ["output_0"]
    torch.set_num_threads(1)  # the child computes with one thread: the same sums, the same bits
    from onnx import numpy_helper  # the child writes the bytes onnx's own serialiser writes for the same tensor
    first = direct("conv_bn", cases[0][1])[1]
    assert (tmp_path / "conv" / "test_data_set_0" / "output_0.pb").read_bytes() == \
        numpy_helper.from_array(first.numpy(), "output_0").SerializeToString()
    for (name, inputs), ref, orc in zip(cases, answer["references"], answer["oracle"]):
        module, expected = direct("conv_bn", inputs)
        assert ref["name"] == name and orc["name"] == name
        assert torch.equal(unstored(tmp_path / "conv", ref["outputs"][0]), expected)
        assert orc["outputs"][0]["dtype"] == "float64"
        torch.testing.assert_close(unstored(tmp_path / "conv", orc["outputs"][0]).float(), expected, rtol=1e-4, atol=1e-5)
    assert answer["module"] == {"class": "worker_models.ConvBn",
                                "source_sha256": hashlib.sha256(MODELS.read_bytes()).hexdigest(),
                                "state_sha256": state_sha256(module)}
    weights = answer["weights"]
    assert weights["missing"] == []
    folded = {t["name"] for t in weights["transformed"] if "folded into Conv conv" in t["why"]}
    assert folded == {"conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}
    assert {k["name"] for k in weights["kept"]} == {"head.weight", "head.bias"}


def test_two_conv_exports_in_a_row_in_one_worker_do_not_deadlock(worker, tmp_path):
    for k in range(2):
        answer = worker.request(image_request(tmp_path / f"again-{k}")[0], timeout=120)
        assert answer["exception"] is None and answer["wrote_model"], answer


def test_module_reference_recomputes_the_export_references(worker, tmp_path):
    req, cases = image_request(tmp_path / "ref")
    exported = worker.request(req)
    frames = [{"name": name, "inputs": [Frame("image", inputs[0])]} for name, inputs in cases]  # its inputs as frames
    again = worker.request({key: req[key] for key in ("factory", "factory_path", "inputs", "output_names")}
                           | {"op": "module_reference", "cases": frames})
    assert again["ok"] and again["exception"] is None and again["import_error"] is None
    assert again["module"] == exported["module"]
    assert [r["name"] for r in again["references"]] == [r["name"] for r in exported["references"]]
    for recomputed, kept in zip(again["references"], exported["references"]):
        assert torch.equal(unwire(recomputed["outputs"][0]), unstored(tmp_path / "ref", kept["outputs"][0]))
    assert again["output_names"] == ["output_0"]


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def test_an_import_error_is_reported_as_import_error(worker, tmp_path):
    path = write(tmp_path, "broken.py", "import nnx_no_such_module_anywhere\n")
    answer = worker.request(image_request(tmp_path / "out", factory="make", path=path)[0])
    assert answer["ok"] and answer["import_error"].startswith("ModuleNotFoundError: No module named")
    assert answer["exception"] is None and answer["module"] is None and not answer["wrote_model"]
    package = image_request(tmp_path / "out", path=None)[0] | {"factory": "nnx_no_such_package.models:make"}
    answer = worker.request(package)
    assert answer["import_error"].startswith("ModuleNotFoundError"), answer
    syntax = write(tmp_path, "syntax.py", "def make(:\n")
    answer = worker.request(image_request(tmp_path / "out", factory="make", path=syntax)[0])
    assert answer["import_error"].startswith("SyntaxError"), answer


@pytest.mark.parametrize("factory, text", [
    ("raises", "the factory raised ValueError: this factory fails on purpose"),
    ("not_a_module", "the factory returned builtins.dict, not a torch.nn.Module"),
    ("no_such_factory", "worker_models.py has no factory named no_such_factory"),
])
def test_a_factory_that_fails_is_an_exception(worker, tmp_path, factory, text):
    answer = worker.request(image_request(tmp_path / "out", factory=factory)[0])
    assert answer["ok"] and answer["import_error"] is None and answer["exception"] == text
    assert not answer["wrote_model"] and answer["references"] == []


@pytest.mark.parametrize("factory, how", [("exits", "exit status 3 before answering"),
                                          ("kills_itself", "killed by signal 9 (SIGKILL)")])
def test_a_dying_module_is_reported_and_the_worker_serves_on(worker, tmp_path, factory, how):
    answer = worker.request(image_request(tmp_path / "out", factory=factory)[0])
    assert answer["ok"] and answer["exception"] == f"the module's process died: {how}"
    assert worker.request({"op": "ping"}) == {"ok": True}
    assert worker.request(image_request(tmp_path / "after")[0])["exception"] is None


ISOLATED = """import builtins, torch
if not hasattr(builtins, "NNX_SHARED"):
    builtins.NNX_SHARED = {value}
SHARED = {value}
class Seen(torch.nn.Module):
    def forward(self, x):
        return x * 0 + builtins.NNX_SHARED + SHARED
def make():
    return Seen()
"""


def test_two_modules_with_the_same_global_do_not_see_each_other(worker, tmp_path):
    """Same file name, same global names, consecutive requests: each module sees only its own values."""
    spec = [{"name": "x", "shape": [1], "dtype": "float32"}]
    for value in (10.0, 20.0):
        path = write(tmp_path / f"m{int(value)}", "model.py", ISOLATED.format(value=value))
        req = request("make", spec, [], [torch.zeros(1)], [("c", [torch.zeros(1)])], tmp_path / "o", path=path)
        answer = worker.request(req)
        assert answer["exception"] is None, answer
        assert unstored(tmp_path / "o", answer["references"][0]["outputs"][0]).tolist() == [2 * value]


def test_the_mutate_buffer_fault_shows_in_changed(tmp_path):
    faulty = Worker(fault="mutate-buffer")
    try:
        answer = faulty.request(image_request(tmp_path / "conv")[0])
    finally:
        faulty.close()
    assert answer["fault"] == "mutate-buffer" and answer["exception"] is None
    assert answer["changed"] == ["parameters"] and answer["changed_entries"] == ["buffer:bn.running_mean"]
    assert answer["model_state"] == {"parameters": False, "gradients": True, "modes": True}


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_two_inputs_and_tuple_and_dict_outputs(worker, tmp_path, exporter):
    specs = [{"name": "x", "shape": ["batch", 4], "dtype": "float32"},
             {"name": "y", "shape": ["batch", 5], "dtype": "float32"}]
    g = torch.Generator().manual_seed(2)
    case = [torch.randn(3, 4, generator=g), torch.randn(3, 5, generator=g)]
    example = [torch.randn(2, 4, generator=g), torch.randn(2, 5, generator=g)]
    req = request("two_in_two_out", specs, BATCH, example, [("b3", case)], tmp_path / "two", exporter,
                  names=["sum", "prod", "neg"])
    answer = worker.request(req)
    assert answer["exception"] is None, answer
    assert answer["dims_in_graph"] == {"batch": "dynamic"} and answer["weights"]["missing"] == []
    assert [o["name"] for o in answer["graph"]["outputs"]] == ["sum", "prod", "neg"]
    _, (s, d) = direct("two_in_two_out", case)
    got = [unstored(tmp_path / "two", o) for o in answer["references"][0]["outputs"]]
    assert [o["name"] for o in answer["references"][0]["outputs"]] == ["sum", "prod", "neg"]
    for value, want in zip(got, [s, d["prod"], d["neg"]]):
        torch.testing.assert_close(value, want)
    wrong = worker.request(req | {"output_names": ["only"]})
    assert wrong["exception"] == "the profile names 1 outputs but the module returns 3"


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_an_int64_input_embedding_module(worker, tmp_path, exporter):
    specs = [{"name": "tokens", "shape": ["batch", 7], "dtype": "int64"}]
    g = torch.Generator().manual_seed(3)
    case = [torch.randint(0, 20, (1, 7), generator=g)]
    req = request("embedder", specs, BATCH, [torch.randint(0, 20, (2, 7), generator=g)], [("b1", case)],
                  tmp_path / "emb", exporter)
    answer = worker.request(req)
    assert answer["exception"] is None, answer
    assert answer["graph"]["inputs"][0]["dtype"] == "int64" and answer["dims_in_graph"] == {"batch": "dynamic"}
    assert answer["weights"]["missing"] == [] and answer["oracle"][0]["outputs"][0]["dtype"] == "float64"
    _, expected = direct("embedder", case)
    torch.testing.assert_close(unstored(tmp_path / "emb", answer["references"][0]["outputs"][0]), expected)


@pytest.mark.parametrize("exporter", EXPORTERS)
@pytest.mark.parametrize("factory, width", [("recurrent", 4), ("encoder", 8)])
def test_recurrent_and_attention_weights_are_all_explained(worker, tmp_path, exporter, factory, width):
    specs = [{"name": "seq", "shape": ["batch", "time", width], "dtype": "float32"}]
    g = torch.Generator().manual_seed(4)
    req = request(factory, specs, [["batch", [2, 1]], ["time", [5, 3]]], [torch.randn(2, 5, width, generator=g)],
                  [("b1", [torch.randn(1, 3, width, generator=g)])], tmp_path / factory, exporter)
    answer = worker.request(req)
    assert answer["exception"] is None, answer
    assert answer["weights"]["missing"] == [], answer["weights"]


def test_malformed_module_requests_are_refused(worker, tmp_path):
    req, _ = image_request(tmp_path / "bad")
    assert not worker.request(req | {"factory": "no colon here"})["ok"]
    assert not worker.request(req | {"factory_path": "relative/worker_models.py"})["ok"]
    assert not worker.request(req | {"exporter": "tracing"})["ok"]
    short = req | {"example": [stored(tmp_path / "bad", "short.pb", "image", torch.zeros(2, 3, 16, 8))]}
    assert "is float32 [2, 3, 16, 8], not float32 [2, 3, 16, 16]" in worker.request(short)["error"]
    wrong = req | {"inputs": [IMAGE[0] | {"shape": ["width", 3, 16, 16]}]}
    assert "neither a size nor a dim" in worker.request(wrong)["error"]

