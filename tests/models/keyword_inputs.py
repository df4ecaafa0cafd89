"""A forward whose inputs after the first are optional and act differently (tests/e2e/test_module_inputs_by_name.py):
`mask` adds ten times itself, `scale` multiplies, so an input given to the wrong one changes the outputs."""
import torch
from torch import nn


class _MaskOrScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, mask=None, scale=None):
        y = self.lin(x)
        if mask is not None:
            y = y + 10.0 * mask
        if scale is not None:
            y = y * scale
        return y


def mask_or_scale() -> nn.Module:
    """forward(x, mask=None, scale=None), each [batch, 4] float32 -> y [batch, 4]."""
    torch.manual_seed(0)
    return _MaskOrScale()
