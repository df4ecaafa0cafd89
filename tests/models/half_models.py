"""Models with half-precision or 8-bit outputs (doc/record-format.md §10, "Half-precision outputs"): each
factory seeds torch and returns a fresh module with random weights."""
import torch
from torch import nn


class _HalfHead(nn.Module):
    """A float32 body whose scores are returned in float16, beside their uint8 quantised form."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 5))

    def forward(self, x):
        scores = self.body(x)
        return scores.half(), (torch.sigmoid(scores) * 255).to(torch.uint8)


def half_head() -> nn.Module:
    """x [batch, 8] float32 -> scores [batch, 5] float16, levels [batch, 5] uint8."""
    torch.manual_seed(0)
    return _HalfHead()
