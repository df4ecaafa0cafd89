"""A Hugging Face causal language model from a tiny config (GPT-2: 2 layers, hidden 32, vocabulary 100, random
weights, nothing downloaded) called as users call one for a padded batch: forward(input_ids, attention_mask)
-> logits [batch, seq, 100]. With left padding, a padded query's whole window is hidden by the mask, and the
exported graph's logits there differ from PyTorch's: positions no user reads (tests/e2e/test_dont_care.py).
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


class CausalLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = GPT2LMHeadModel(GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64)).eval()

    def forward(self, input_ids, attention_mask):
        return self.lm(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def gpt2_lm():
    torch.manual_seed(0)
    return CausalLM().eval()
