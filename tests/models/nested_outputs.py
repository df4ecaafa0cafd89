"""A module whose output is nested, as a causal language model's is (tests/e2e/test_nested_output_names.py): a
dict of logits and a tuple of per-layer {key, value} caches, which the tool names by their paths
(`logits`, `past_key_values.0.key`, ...)."""
import torch
from torch import nn


class CachedHead(nn.Module):
    """Logits and, per layer, the key and value projections of its input, in a dict of tuples of dicts."""

    def __init__(self, features: int = 6, layers: int = 2):
        super().__init__()
        self.head = nn.Linear(features, 4)
        self.keys = nn.ModuleList(nn.Linear(features, 3) for _ in range(layers))
        self.values = nn.ModuleList(nn.Linear(features, 3) for _ in range(layers))

    def forward(self, x):
        cache = tuple({"key": k(x), "value": torch.tanh(v(x))} for k, v in zip(self.keys, self.values))
        return {"logits": self.head(x), "past_key_values": cache}


def cached_head():
    torch.manual_seed(0)
    return CachedHead()


class TwoTensors(nn.Module):
    """A plain tuple of tensors: its outputs keep the names output_0 and output_1."""

    def forward(self, x):
        return x * 2, x + 1


def two_tensors():
    return TwoTensors()
