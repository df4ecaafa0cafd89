"""Modules whose inputs are not float32 or int64 (tests/e2e/test_module_input_dtypes.py): a bool mask, a float16
input, a bfloat16 input and int8/uint8 codes, each drawn by the tool."""
import torch
from torch import nn


class MaskedMean(nn.Module):
    """The mean of the features the bool mask keeps, per row: forward(x float32 [b, 6], mask bool [b, 6])."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x, mask):
        kept = torch.where(mask, self.proj(x), torch.zeros_like(x))
        return kept.sum(dim=1) / mask.sum(dim=1).clamp(min=1).to(x.dtype)


class HalfIn(nn.Module):
    """A float16 (or bfloat16) input widened to float32 before a Linear."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 3)

    def forward(self, x):
        return self.proj(x.float())


class Codes(nn.Module):
    """int8 and uint8 codes, embedded by their values: forward(signed int8 [b, 4], unsigned uint8 [b, 4])."""

    def forward(self, signed, unsigned):
        return signed.to(torch.float32) * 0.5 + unsigned.to(torch.float32)


def masked_mean():
    torch.manual_seed(0)
    return MaskedMean()


def half_in():
    torch.manual_seed(0)
    return HalfIn()


def codes():
    return Codes()
