"""A module over token ids and their attention mask (tests/e2e/test_dims_only_for_drawn.py): forward(input_ids
int64 [batch, seq] in [0, 50), attention_mask int64 [batch, seq]) -> [batch, seq, 4], zero where masked."""
import torch
from torch import nn


class TokenProjection(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.proj = nn.Linear(8, 4)

    def forward(self, input_ids, attention_mask):
        hidden = self.proj(self.embed(input_ids))
        return hidden * attention_mask.unsqueeze(-1).to(hidden.dtype)


def make():
    torch.manual_seed(0)
    return TokenProjection()
