"""A factory for doc/examples/tokens-profile.json (doc/profile-files.md): a tiny token model whose input is
integer ids of any batch and sequence length."""
import torch


class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(1000, 8)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, ids):
        return self.head(torch.tanh(self.embed(ids)))


def tiny_lm():
    torch.manual_seed(0)
    return TinyLM()
