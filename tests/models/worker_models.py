"""Small module factories for the worker's module-profile tests (tests/e2e/test_worker_module.py).

Each factory takes no argument and returns a torch.nn.Module (or, on purpose, fails to). Deterministic:
each seeds torch itself. The BatchNorm statistics are set away from their fresh values so that folding
them into the Conv changes the weights visibly.
"""

from __future__ import annotations

import os
import signal

import torch
from torch import nn

MARKER = "worker_models"  # a module global: the isolation test's other module defines its own


class ConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, image):
        x = torch.relu(self.bn(self.conv(image)))
        return self.head(x.mean(dim=(2, 3)))


def conv_bn():
    torch.manual_seed(0)
    model = ConvBn()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.2, 0.2)
    model.bn.num_batches_tracked.fill_(7)
    return model


class TwoInTwoOut(nn.Module):
    """Two inputs sharing the dim "batch"; a tuple (tensor, dict) output: three pytree leaves."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(5, 3)

    def forward(self, x, y):
        s = self.a(x) + self.b(y)
        return s, {"prod": s * 2.0, "neg": -s}


def two_in_two_out():
    torch.manual_seed(0)
    return TwoInTwoOut()


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.out = nn.Linear(6, 2)

    def forward(self, tokens):
        return self.out(self.emb(tokens).mean(dim=1))


def embedder():
    torch.manual_seed(0)
    return Embedder()


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 6, batch_first=True)
        self.out = nn.Linear(6, 2)

    def forward(self, seq):
        out, _ = self.gru(seq)
        return self.out(out[:, -1])


def recurrent():
    torch.manual_seed(0)
    return Recurrent()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)

    def forward(self, seq):
        return self.encoder(seq)


def encoder():
    torch.manual_seed(0)
    return Encoder()


def resnet18():
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None)


def mobilenet_v3_small():
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.mobilenet_v3_small(weights=None)


def raises():
    raise ValueError("this factory fails on purpose")


def not_a_module():
    return {"not": "a module"}


def exits():
    os._exit(3)


def kills_itself():
    os.kill(os.getpid(), signal.SIGKILL)


def marker_seen():
    """A module whose output says which MARKER its factory saw (the isolation test)."""
    seen = torch.tensor([float(len(MARKER))])

    class Marker(nn.Module):
        def forward(self, x):
            return x * 0 + seen

    return Marker()


class IgnoresAnInput(nn.Module):
    """forward(x, unused): the legacy exporter drops `unused` from the graph's inputs."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)

    def forward(self, x, unused):
        return self.head(x)


def ignores_an_input():
    torch.manual_seed(0)
    return IgnoresAnInput()


def sleeps():
    """A factory that hangs (the worker's deadline ends it)."""
    import time
    time.sleep(3600)


class Widens(nn.Module):
    """An image-to-image module: one channel in, 128 out (a 1x1 convolution), so its outputs are 128 times
    its inputs: [batch, 1, 128, 128] -> [batch, 128, 128, 128], 8 MiB of float32 per image."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 128, 1)

    def forward(self, image):
        return self.conv(image)


def widens():
    torch.manual_seed(0)
    return Widens()


class Halves(nn.Module):
    """Sums neighbouring columns: [batch, h, w] -> [batch, h, w / 2] (bench/channel_limits.py: inputs at the
    documented limits, 64 MiB each, outputs whose float64 oracle is 64 MiB)."""

    def forward(self, x):
        return x[:, :, 0::2] + x[:, :, 1::2]


def halves():
    return Halves()


class OracleFailsOnBatch3(nn.Module):
    """Doubles its input; its float64 copy raises on a batch of 3, after the float64 outputs of the cases before
    it were written (the oracle given up part way: tests/e2e/test_nothing_lost.py)."""

    def forward(self, x):
        if x.dtype == torch.float64 and x.shape[0] == 3:
            raise RuntimeError("this module has no float64 batch of 3")
        return x * 2


def oracle_fails_on_batch3():
    return OracleFailsOnBatch3()
