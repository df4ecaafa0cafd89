"""The user's own ONNX file for the ONNX-file kind's tests: a script of the test's own exports a small module
(net.py's factory, written beside it)
with options a profile cannot express (torch.onnx.export with do_constant_folding=False, its weights saved
as external data beside the model) and writes onnx_test_runner's data sets (test_data_set_N/input_j.pb,
output_j.pb) from PyTorch's outputs. Run in its own Python process, so the tests themselves import no torch."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

FACTORY = textwrap.dedent('''
    import torch


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(6, 8)
            self.b = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.b(torch.tanh(self.a(x)))


    def make():
        torch.manual_seed(0)
        return Net().eval()
''')

EXPORT_SCRIPT = textwrap.dedent('''
    import os, sys
    import numpy as np, onnx, torch
    from onnx import numpy_helper

    folder = sys.argv[1]
    sys.path.insert(0, folder)
    from net import make

    net = make()
    path = os.path.join(folder, "model.onnx")
    torch.onnx.export(net, (torch.randn(2, 6),), path, input_names=["input.1"], output_names=["out"],
                      dynamic_axes={"input.1": {0: "batch"}}, do_constant_folding=False, dynamo=False,
                      opset_version=17)
    model = onnx.load(path)
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    for k, batch in enumerate([1, 4]):
        data = os.path.join(folder, "data", f"test_data_set_{k}")
        os.makedirs(data)
        x = torch.randn(batch, 6)
        with torch.no_grad():
            y = net(x)
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), "input.1").SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y.numpy(), "out").SerializeToString())
''')


def export_own_file(folder: Path) -> Path:
    """model.onnx (external data in weights.bin) and data/ in `folder`, written by the test's own script."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "net.py").write_text(FACTORY)
    done = subprocess.run([sys.executable, "-c", EXPORT_SCRIPT, str(folder)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return folder / "model.onnx"


def onnx_profile(folder: Path, name="mine", **extra) -> list:
    return [{"name": name, "onnx": str(folder / "model.onnx"), "data": str(folder / "data"), **extra}]


def factory_profile(folder: Path, model: Path, name="vs-module") -> list:
    """The file at `model` checked against net.py's factory, its graph input input.1 bound to forward's x."""
    return [{"name": name, "onnx": str(model), "module": f"{folder / 'net.py'}:make", "bind": {"input.1": "x"},
             "dims": {"batch": [2, 1]}}]


def write_profiles(path: Path, profiles: list) -> Path:
    path.write_text(json.dumps(profiles))
    return path


def elementwise_profile(folder: Path, ops: list, rtol: float, atol: float) -> dict:
    """An ONNX file of elementwise operators side by side over 4,096 values from -3 to 3 (each node named
    node_<op>, its value <op>_out, concatenated into `cat`), with one data set whose output is ONNX's reference
    evaluator's (numpy's float32): a profile of the ONNX-file kind judged by `rtol` and `atol`."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
    nodes = [helper.make_node(op, ["x"], [f"{op.lower()}_out"], name=f"node_{op.lower()}") for op in ops]
    nodes.append(helper.make_node("Concat", [f"{op.lower()}_out" for op in ops], ["cat"], name="concat", axis=0))
    graph = helper.make_graph(nodes, "elementwise", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4096])],
                              [helper.make_tensor_value_info("cat", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.save(model, folder / "model.onnx")
    x = np.linspace(-3, 3, 4096, dtype=np.float32).reshape(1, 4096)
    (data / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (data / "output_0.pb").write_bytes(
        numpy_helper.from_array(ReferenceEvaluator(model).run(None, {"x": x})[0], "cat").SerializeToString())
    return {"name": "elementwise", "onnx": str(folder / "model.onnx"), "data": str(folder), "rtol": rtol, "atol": atol}
