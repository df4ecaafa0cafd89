"""Models whose outputs are integers or bools (doc/record-format.md §10, "Integer and bool outputs"): the
index an argmax head returns, the indices of nonzero elements, a bool mask. Each factory seeds torch and
returns a fresh module with random weights."""
import torch
from torch import nn


class _ArgmaxHead(nn.Module):
    """A small classifier that returns its logits and the label argmax picks from them."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x):
        logits = self.body(x)
        return logits, logits.argmax(dim=-1)


def argmax_head() -> nn.Module:
    """x [batch, 8] float32 -> logits [batch, 10] float32, label [batch] int64."""
    torch.manual_seed(0)
    return _ArgmaxHead()


class _Nonzero(nn.Module):
    """The indices of the positive elements of a linear map, and the mask of them."""

    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(6, 6)

    def forward(self, x):
        positive = self.mix(x) > 0
        return torch.nonzero(positive), positive


def nonzero_indices() -> nn.Module:
    """x [batch, 6] float32 -> indices [count, 2] int64 (count depends on the data), mask [batch, 6] bool."""
    torch.manual_seed(0)
    return _Nonzero()
