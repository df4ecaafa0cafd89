"""The PyTorch network of a `feed_fwd` model config, exactly as doc/record-format.md §2 describes it.

Shared by the worker (export, reference forward) and the Python API's `build_model`; torch is imported
only when a network is built. The exported graph depends on this module's exact shape, so it is the one
definition in this repository:

  * the only registered child is `layers`, a ModuleList of `Linear(in, out)` over consecutive widths;
    activations and dropout are functionals, not modules;
  * forward: `X.view(X.size(0), -1)` first (the batch-dependent Reshape a real model has), then for each
    hidden layer linear -> activation -> `F.dropout(p, training=self.training)`, and the last layer
    linear only (raw logits).
"""

from __future__ import annotations

ACTIVATIONS = ("elu", "selu", "tanh", "relu", "softmax", "sigmoid", "softplus", "leaky_relu")

_CLASS = None


def _activation(name: str):
    import torch.nn.functional as F

    if name == "softmax":
        return lambda x: F.softmax(x, dim=-1)
    return getattr(F, name)  # F.elu, F.selu, F.tanh, F.relu, F.sigmoid, F.softplus, F.leaky_relu


def feedfwd_class():
    """FeedFwdNN, defined on first use (torch is imported lazily)."""
    global _CLASS
    if _CLASS is None:
        import torch.nn as nn
        import torch.nn.functional as F

        class FeedFwdNN(nn.Module):
            """Linear layers over consecutive widths; hidden: linear -> activation -> dropout."""

            def __init__(self, input_dim, hidden_dims, output_dim, activation, dropout):
                super().__init__()
                widths = [input_dim, *hidden_dims, output_dim]
                self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
                self.activation = _activation(activation)  # a plain function: not registered
                self.dropout = float(dropout)

            def forward(self, X):
                X = X.view(X.size(0), -1)
                for layer in self.layers[:-1]:
                    X = layer(X)
                    X = self.activation(X)
                    X = F.dropout(X, p=self.dropout, training=self.training)
                return self.layers[-1](X)

        _CLASS = FeedFwdNN
    return _CLASS


def build_network(config: dict, parameters=None):
    """The network of `config` (net feed_fwd: input_dim, hidden_dims, output_dim, activation, dropout).
    `parameters`, when given, is a list of (name, shape, float32 tensor) in `named_parameters()` order,
    copied in bit for bit; ValueError when names, order or shapes differ from the network's."""
    import torch

    net = feedfwd_class()(config["input_dim"], list(config["hidden_dims"]), config["output_dim"],
                          config["activation"], config["dropout"])
    if parameters is None:
        return net
    own = list(net.named_parameters())
    given = [(name, list(shape)) for name, shape, _ in parameters]
    expected = [(name, list(p.shape)) for name, p in own]
    if given != expected:
        raise ValueError(f"parameters {given} do not fit the model's {expected}")
    with torch.no_grad():
        for (_, param), (_, _, values) in zip(own, parameters):
            param.copy_(values)
    return net
