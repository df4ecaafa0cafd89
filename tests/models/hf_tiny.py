"""Ten Hugging Face models from tiny configs (random weights, nothing downloaded), one factory each, all in one
file whose module-level import is transformers: what a warm parent imports once for all of them
(tests/e2e/test_warm_factory_imports.py, bench/hf_warm_imports.py). Each factory seeds torch and returns the
model wrapped to give one tensor (its last hidden state, or its logits): `ids` [batch, 8] int64 in [0, 100)
for the text models, `image` [batch, 3, 32, 32] float32 for ViT.
"""
from transformers import (AlbertConfig, AlbertModel, BertConfig, BertForSequenceClassification, BertModel,
                          DistilBertConfig, DistilBertModel, ElectraConfig, ElectraModel, GPT2Config, GPT2Model,
                          RobertaConfig, RobertaModel, T5Config, T5EncoderModel, ViTConfig, ViTModel)
import torch

SIZES = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
             max_position_embeddings=64)


class FirstOutput(torch.nn.Module):
    """The wrapped model's first output (last_hidden_state or logits) for one input."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)[0]


def _made(model_class, config) -> torch.nn.Module:
    torch.manual_seed(0)
    return FirstOutput(model_class(config).eval())


def bert():
    return _made(BertModel, BertConfig(**SIZES))


def bert_classifier():
    return _made(BertForSequenceClassification, BertConfig(**SIZES, num_labels=3))


def gpt2():
    return _made(GPT2Model, GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                                       use_cache=False))


def distilbert():
    return _made(DistilBertModel, DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                                                   max_position_embeddings=64))


def t5_encoder():
    return _made(T5EncoderModel, T5Config(vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2))


def vit():
    return _made(ViTModel, ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, image_size=32, patch_size=8))


def roberta():
    return _made(RobertaModel, RobertaConfig(**dict(SIZES, max_position_embeddings=72)))


def albert():
    return _made(AlbertModel, AlbertConfig(**SIZES, embedding_size=16))


def electra():
    return _made(ElectraModel, ElectraConfig(**SIZES, embedding_size=16))


def bert_classifier_five():
    return _made(BertForSequenceClassification, BertConfig(**SIZES, num_labels=5))


TEXT = ("bert", "bert_classifier", "gpt2", "distilbert", "t5_encoder", "roberta", "albert", "electra",
        "bert_classifier_five")
IMAGE = ("vit",)
