"""Real departures for the localisation's tests (doc/localisation.md): a user's own small CNN and transformer
block, exported for real by the dynamo exporter in a script of the test's own (its own Python process, so the
tests import no torch), then edited so one node computes something else: the CNN's second Relu turned into a
Sigmoid, or the bias of the transformer block's first feed-forward Add moved by 0.5 (so the nodes after it
only carry the error). The edited file is checked against the factory that made it (an imported ONNX file with
a `module`, doc/profile-files.md)."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

CNN = textwrap.dedent('''
    import torch


    class Net(torch.nn.Module):
        def __init__(self, channels=8):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(3, channels, 3, padding=1)
            self.act1 = torch.nn.ReLU()
            self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1)
            self.act2 = torch.nn.ReLU()
            self.head = torch.nn.Linear(channels, 4)

        def forward(self, x):
            y = self.act2(self.conv2(self.act1(self.conv1(x))))
            return self.head(y.mean(dim=(2, 3)))


    def make():
        torch.manual_seed(0)
        return Net().eval()


    def make_wide():
        torch.manual_seed(0)
        return Net(channels=16).eval()
''')

BLOCK = textwrap.dedent('''
    import torch


    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                                          batch_first=True)
            self.head = torch.nn.Linear(16, 4)

        def forward(self, x):
            return self.head(self.layer(x))


    def make():
        torch.manual_seed(0)
        return Block().eval()
''')

# Two Conv+BatchNorm pairs with small running variances: ONNX Runtime's optimisations fold each BatchNorm into
# its Conv, which moves the outputs a little further from PyTorch's than the unoptimised graph does.
CONV_BN = textwrap.dedent('''
    import torch


    class ConvBn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(16)
            self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1)
            self.bn2 = torch.nn.BatchNorm2d(16)
            with torch.no_grad():
                for bn in (self.bn, self.bn2):
                    bn.running_mean.uniform_(-1, 1)
                    bn.running_var.uniform_(0.01, 0.05)
                    bn.weight.uniform_(0.5, 2)
                    bn.bias.uniform_(-1, 1)

        def forward(self, x):
            return self.bn2(self.conv2(torch.relu(self.bn(self.conv(x)))))


    def make():
        torch.manual_seed(0)
        return ConvBn().eval()
''')

EXPORT_AND_EDIT = textwrap.dedent('''
    import os, sys
    import numpy as np, onnx, torch
    from onnx import numpy_helper

    folder, module_file, factory, shape, edit = sys.argv[1:6]
    sys.path.insert(0, folder)
    net = getattr(__import__(module_file), factory)()
    shape = [int(s) for s in shape.split(",")]
    path = os.path.join(folder, "model.onnx")
    torch.onnx.export(net, (torch.randn(*shape),), path, input_names=["x"], output_names=["y"],
                      dynamic_shapes=({0: torch.export.Dim("batch")},), dynamo=True)
    model = onnx.load(path)
    if edit == "sigmoid":
        [n for n in model.graph.node if n.op_type == "Relu"][1].op_type = "Sigmoid"
    elif edit == "add-constant":
        bias = next(i for i in model.graph.initializer if i.name == "layer.linear1.bias")
        bias.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(bias) + np.float32(0.5), bias.name))
    onnx.save(model, os.path.join(folder, "edited.onnx"))
''')


def export_edited(folder: Path, source: str, factory: str, shape: str, edit: str) -> Path:
    """The factory's module exported by dynamo and edited as `edit` says: <folder>/edited.onnx."""
    folder.mkdir(parents=True, exist_ok=True)
    module_file = "net" if source is CNN else "block"
    (folder / f"{module_file}.py").write_text(source)
    done = subprocess.run([sys.executable, "-c", EXPORT_AND_EDIT, str(folder), module_file, factory, shape, edit],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return folder / "edited.onnx"


def edited_profile(folder: Path, name: str, factory: str, dims: dict, **extra) -> dict:
    module_file = "net.py" if (folder / "net.py").exists() else "block.py"
    return {"name": name, "onnx": str(folder / "edited.onnx"), "module": f"{folder / module_file}:{factory}",
            "dims": dims, **extra}


def write_profiles(path: Path, profiles: list) -> Path:
    path.write_text(json.dumps(profiles))
    return path


def localisation_of(record: dict) -> dict:
    return record["stages"]["parity"]["detail"]["localisation"]
