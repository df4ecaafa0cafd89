"""A model with bfloat16 weights (doc/record-format.md §10): float32 in, a bfloat16 Linear, float32 out. Both
exporters export it (a bfloat16 Gemm); ONNX Runtime's CPU provider has no bfloat16 Gemm kernel, so its true
class is load-error."""
import torch
from torch import nn


class _Bfloat16Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3).to(torch.bfloat16)

    def forward(self, x):
        return self.linear(x.to(torch.bfloat16)).float()


def bfloat16_linear() -> nn.Module:
    """x [batch, 4] float32 -> y [batch, 3] float32 through a bfloat16 Linear."""
    torch.manual_seed(0)
    return _Bfloat16Linear()
