"""`import nnx` and `import nnx.export_conformance` import none of onnx, onnxruntime, onnxscript or torch.

A fresh interpreter blocks those modules (and everything under them) with a meta-path finder that refuses
them, then imports the package and uses its tables: nothing may reach a blocked module. A control import
proves the block works: a blocked module that this environment has (torch, onnx) cannot be imported.
"""
import importlib.util
import json
import subprocess
import sys

import pytest

from conftest import BUILD

HEAVY = ("onnx", "onnxruntime", "onnxscript", "torch")

BLOCKER = f"""
import importlib.abc, json, sys
HEAVY = {HEAVY!r}
attempts = []
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HEAVY:
            attempts.append(name)
            raise ImportError("blocked by the test: " + name)
        return None
sys.meta_path.insert(0, Block())
sys.path.insert(0, {str(BUILD / "python")!r})
"""


def run(program: str) -> dict:
    done = subprocess.run([sys.executable, "-c", BLOCKER + program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_blocked_modules_exist_here_so_the_block_means_something():
    assert importlib.util.find_spec("torch") is not None
    assert importlib.util.find_spec("onnx") is not None


@pytest.mark.parametrize("module", ["torch", "onnx"])
def test_control_the_block_refuses_a_heavy_import(module):
    result = run(f"""
try:
    import {module}
    outcome = "imported"
except ImportError as error:
    outcome = str(error)
print(json.dumps({{"outcome": outcome, "attempts": attempts}}))
""")
    assert result["outcome"] == f"blocked by the test: {module}"
    assert result["attempts"] == [module]


def test_import_nnx_and_the_conformance_module_touch_no_heavy_module():
    result = run("""
import nnx
import nnx.export_conformance as ec
version = nnx.__version__
profiles = {name: p.to_json() for name, p in ec.PROFILES.items()}
custom = ec.Profile("light", model={"hidden_dims": [2]})
lines = ec.summary_lines([])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
print(json.dumps({"attempts": attempts, "loaded": loaded, "file": nnx.__file__, "profiles": list(profiles)}))
""")
    assert result["attempts"] == [] and result["loaded"] == []
    assert result["file"].startswith(str(BUILD / "python"))
    assert result["profiles"] == ["feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"]
