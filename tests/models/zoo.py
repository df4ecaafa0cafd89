"""The test model zoo: zero-argument factories of real torch.nn.Modules (see README.md beside this file).

Every factory seeds torch (`torch.manual_seed(0)`) and returns a fresh module with random weights (torchvision's
with `weights=None`: nothing is downloaded). The input each expects is in tests/models/profiles.json. Some of
them are here because an exporter gets them wrong (batch_baked, shape_branch) or cannot export them (eigh).
"""
import torch
from torch import nn


def resnet18() -> nn.Module:
    """torchvision's ResNet-18, 1000 classes; image [batch, 3, 64, 64] float32 -> logits [batch, 1000]."""
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None)


def mobilenet_v3_small() -> nn.Module:
    """torchvision's MobileNetV3-Small (hardswish, squeeze-excitation); image [batch, 3, 64, 64] -> [batch, 1000].
    With its random initialization the logits are tiny (|logit| < 1e-9), so its profiles need a tiny atol."""
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.mobilenet_v3_small(weights=None)


class _GruHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(input_size=8, hidden_size=16, num_layers=1, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, sequence):
        out, _ = self.gru(sequence)
        return self.head(out[:, -1, :])


def gru() -> nn.Module:
    """A one-layer GRU (batch_first, hidden 16), its last step through a Linear;
    sequence [batch, 12, 8] -> [batch, 4]."""
    torch.manual_seed(0)
    return _GruHead()


def transformer_encoder() -> nn.Module:
    """nn.TransformerEncoder, 2 layers, d_model 32, nhead 4, feed-forward 64, batch_first, dropout 0;
    sequence [batch, 10, 32] -> [batch, 10, 32]."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


class _BagHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(100, 16, mode="mean")
        self.head = nn.Linear(16, 3)

    def forward(self, ids):
        return self.head(self.bag(ids))


def embedding_bag() -> nn.Module:
    """nn.EmbeddingBag (100 ids, dim 16, mode mean) over each row, then a Linear; ids [batch, 16] int64 in
    [0, 100) -> [batch, 3]."""
    torch.manual_seed(0)
    return _BagHead()


class _TwoInTwoOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(6, 8)
        self.right = nn.Linear(4, 8)
        self.scores = nn.Linear(16, 3)
        self.gate = nn.Linear(16, 2)

    def forward(self, a, b):
        both = torch.cat([torch.relu(self.left(a)), torch.tanh(self.right(b))], dim=1)
        return self.scores(both), torch.sigmoid(self.gate(both))


def two_in_two_out() -> nn.Module:
    """forward(a, b) with a [batch, 6] and b [batch, 4], returning the tuple (scores [batch, 3], gate [batch, 2])."""
    torch.manual_seed(0)
    return _TwoInTwoOut()


class _BatchBaked(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(12, 2)

    def forward(self, x):
        # The known bug: the batch read as a Python int is a constant of the traced graph.
        return self.head(x.reshape(int(x.shape[0]), -1))


def batch_baked() -> nn.Module:
    """x [batch, 3, 4] reshaped with `int(x.shape[0])` (the batch as a Python int) to [batch, 12], then a Linear."""
    torch.manual_seed(0)
    return _BatchBaked()


class _ShapeBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.big = nn.Linear(4, 2)
        self.small = nn.Linear(4, 2)

    def forward(self, x):
        # A Python branch on a dynamic dimension: a trace keeps only the side its example took.
        if x.shape[0] > 2:
            return torch.relu(self.big(x))
        return torch.tanh(self.small(x)) * 2.0


def shape_branch() -> nn.Module:
    """x [batch, 4]; `if x.shape[0] > 2:` relu(big(x)) else 2 * tanh(small(x)) -> [batch, 2]."""
    torch.manual_seed(0)
    return _ShapeBranch()


class _Eigh(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(4, 4, bias=False)

    def forward(self, x):
        m = self.mix(x)
        values, _ = torch.linalg.eigh(m + m.transpose(-1, -2))
        return values


def eigh() -> nn.Module:
    """x [batch, 4, 4] -> the eigenvalues [batch, 4] of the symmetric mix(x) + mix(x)^T (torch.linalg.eigh)."""
    torch.manual_seed(0)
    return _Eigh()


class _Int16Relu(nn.Module):
    def forward(self, x):
        # ReLU on int16: the TorchScript export writes Max(13) on int16, which ONNX Runtime's CPU provider lacks.
        return torch.relu(x.to(torch.int16)).to(torch.float32)


def int16_relu() -> nn.Module:
    """x [batch, 3] float32 -> relu of x cast to int16, back to float32: an operator ONNX Runtime rejects."""
    return _Int16Relu()
