"""A factory file's leading imports of installed packages are paid once per worker, in a warm parent
(worker/nnx_worker_warm.py, doc/warm-parents.md), and the warm parent holds every defence of a module's
process: two Hugging Face profiles of one file import transformers once; an export through a warm parent
equals a cold child's bit for bit; a package the factory's folder shadows is never pre-imported; a module
cannot write to its warm parent's channel, and one that kills its warm parent is reported without taking the
worker; imports that run a tensor operation or start a thread make the warm parent unfit. Real torch, real
transformers (tiny configs), the real worker."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import torch

from worker_support import WORKER, Frame, Worker, stored

HF_TINY = Path(__file__).resolve().parents[1] / "models" / "hf_tiny.py"
IDS = [{"name": "x", "shape": ["batch", 8], "dtype": "int64"}]


def reference_request(path: Path, factory: str) -> dict:
    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0))
    return {"op": "module_reference", "factory": f"{path.name}:{factory}", "factory_path": str(path),
            "inputs": IDS, "output_names": ["y"], "cases": [{"name": "batch-2", "inputs": [Frame("x", ids)]}]}


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    assert w.close() == 0


def test_two_hugging_face_profiles_of_one_file_import_transformers_once(worker):
    first = worker.request(reference_request(HF_TINY, "bert"))
    second = worker.request(reference_request(HF_TINY, "gpt2"))
    for answer in (first, second):
        assert answer["exception"] is None and answer["import_error"] is None, answer
        assert len(answer["references"]) == 1
        # the factory file's own import found transformers' models imported: only the file itself is new
        assert answer["modules_imported"] < 5, answer["modules_imported"]
    warm = [first["warm_parent"], second["warm_parent"]]
    assert warm[0]["pid"] == warm[1]["pid"] and warm[0]["unfit"] is None
    assert [w["profiles"] for w in warm] == [1, 2]
    assert warm[0]["imports"][0].startswith("from transformers import ")
    assert warm[0]["modules_imported"] > 500  # transformers' import, paid in the warm parent, once


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


LINEAR = "\n\ndef make():\n    import torch\n    torch.manual_seed(0)\n    return torch.nn.Embedding(100, {width})\n"


def test_a_package_the_factory_folder_shadows_is_not_pre_imported(worker, tmp_path):
    write(tmp_path, "yaml.py", "WIDTH = 3\n")  # the module's process imports this, not the installed yaml
    path = write(tmp_path, "shadowed.py", "import yaml\n" + LINEAR.format(width="yaml.WIDTH"))
    answer = worker.request(reference_request(path, "make"))
    assert "warm_parent" not in answer
    assert answer["exception"] is None and answer["references"][0]["outputs"][0]["shape"] == [2, 8, 3]


def test_only_the_leading_imports_of_installed_packages_are_pre_imported(worker, tmp_path):
    write(tmp_path, "sibling.py", "WIDTH = 2\n")
    path = write(tmp_path, "led.py", '"""doc"""\nfrom __future__ import annotations\nimport yaml\nimport sibling\n'
                 'import rich\n' + LINEAR.format(width="sibling.WIDTH"))
    answer = worker.request(reference_request(path, "make"))
    assert answer["exception"] is None, answer
    assert answer["warm_parent"]["imports"] == ["import yaml"]  # the run ends at the sibling


def test_a_module_cannot_write_to_its_warm_parents_channel(worker, tmp_path):
    path = write(tmp_path, "forger.py", 'import yaml\nimport os\n\n\ndef make():\n'
                 '    os.write(3, b\'{"ok": true, "forged": true}\\n\')\n')
    answer = worker.request(reference_request(path, "make"))
    assert "forged" not in answer and answer["exception"].startswith("the factory raised OSError"), answer
    assert answer["warm_parent"]["unfit"] is None


def test_a_module_that_kills_its_warm_parent_is_reported_and_the_worker_serves_on(worker, tmp_path):
    imports = "import yaml\nimport os\nimport signal\n"
    path = write(tmp_path, "parricide.py", imports + "\n\ndef make():\n"
                 "    os.kill(os.getppid(), signal.SIGKILL)\n    import time\n    time.sleep(600)\n")
    plain = write(tmp_path, "plain.py", imports + LINEAR.format(width=4))
    answer = worker.request(reference_request(path, "make"), timeout=120)
    assert answer["exception"].startswith("the module's process died: the warm parent it was forked from ended "
                                          "(killed by signal 9"), answer
    again = worker.request(reference_request(plain, "make"))
    assert again["exception"] is None and again["references"][0]["outputs"][0]["shape"] == [2, 8, 4]
    assert again["warm_parent"]["pid"] != answer["warm_parent"]["pid"]  # a new warm parent for the same imports
    assert worker.request({"op": "ping"}) == {"ok": True}


WATCHED = """
import json, os, sys
sys.path.insert(0, {folder!r})
import torch, nnx_worker_warm
pid = os.fork()
if pid == 0:
    facts = nnx_worker_warm._import_watched({statements!r})
    os.write(1, json.dumps(facts["unfit"]).encode())
    os._exit(0)
os.waitpid(pid, 0)
"""


@pytest.mark.parametrize("statement, unfit", [
    ("import torch; torch.ones(2) + 1", "its imports ran tensor operations (aten.add.Tensor, aten.ones.default)"),
    ("import threading, time; threading.Thread(target=time.sleep, args=(5,), daemon=True).start()",
     "its imports started 1 thread(s), which a forked child would not have"),
    ("import no_such_package_anywhere", "'import no_such_package_anywhere' raised ModuleNotFoundError"),
])
def test_imports_that_run_a_tensor_operation_or_start_a_thread_make_a_warm_parent_unfit(statement, unfit):
    import subprocess

    script = WATCHED.format(folder=str(WORKER.parent), statements=[statement])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout).startswith(unfit)


def test_a_fifo_named_as_the_factory_file_never_blocks_the_worker_reading_its_imports(tmp_path):
    sys.path.insert(0, str(WORKER.parent))
    import nnx_worker_warm

    fifo = tmp_path / "factory.py"
    os.mkfifo(fifo)  # no writer: a blocking open would wait for ever
    assert nnx_worker_warm.installed_imports(str(fifo)) == []


BERT = '''

class FirstOutput(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)[0]


def make():
    {inner}torch.manual_seed(0)
    return FirstOutput(BertModel(BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                            intermediate_size=64, max_position_embeddings=64)).eval())
'''


def test_an_export_through_a_warm_parent_equals_a_cold_childs_bit_for_bit(worker, tmp_path):
    imports = "from transformers import BertConfig, BertModel\n"
    warm = write(tmp_path / "warm", "bert_warm.py", imports + "import torch\n" + BERT.format(inner=""))
    cold = write(tmp_path / "cold", "bert_cold.py", "import torch\n" + BERT.format(inner=imports + "    "))
    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0))
    answers = []
    for path in (warm, cold):
        request = dict(reference_request(path, "make"), op="module_export", exporter="torchscript", opset_version=17,
                       dims=[["batch", [2]]], example=[stored(path.parent / "out", "example.pb", "x", ids)],
                       cases=[{"name": "batch-2", "inputs": [stored(path.parent / "out", "case.pb", "x", ids)],
                               "outputs_to": "test_data_set_0", "oracle_to": "oracle_data_set_0"}],
                       output_dir=str(path.parent / "out"), model_file="model.onnx")
        answers.append(worker.request(request))
    assert answers[0]["exception"] is None and answers[1]["exception"] is None, answers
    assert "warm_parent" in answers[0] and "warm_parent" not in answers[1]
    assert [step[0] for step in answers[0]["step_seconds"]][:2] == ["warm_parent", "module"]  # run --timings'
    assert answers[1]["modules_imported"] > 100 > answers[0]["modules_imported"]  # the cold child paid the import
    assert answers[0]["references"] == answers[1]["references"] and answers[0]["oracle"] == answers[1]["oracle"]
    for stored_file in ("test_data_set_0/output_0.pb", "oracle_data_set_0/output_0.pb"):  # the same bytes
        assert (warm.parent / "out" / stored_file).read_bytes() == (cold.parent / "out" / stored_file).read_bytes()
    assert (warm.parent / "out" / "model.onnx").read_bytes() == (cold.parent / "out" / "model.onnx").read_bytes()
