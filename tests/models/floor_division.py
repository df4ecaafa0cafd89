"""Floor division on float tensors (tests/e2e/test_floor_division_outcomes.py): `//` has no derivative, so the
state proof's gradient pass cannot run through it; the legacy TorchScript exporter of this torch exports it
as a Div then Floor that differs from PyTorch's floor_divide (a live exporter bug), the dynamo exporter
exports it faithfully."""
import torch
from torch import nn


class FloorDivide(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Linear(6, 6)

    def forward(self, x):
        return self.scale(x) // 0.37


def floor_divide():
    torch.manual_seed(0)
    return FloorDivide()
