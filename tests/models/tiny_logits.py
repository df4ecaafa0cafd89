"""A real model whose outputs are tiny with random weights, so that a usual atol passes any output (doc/
record-format.md §10, "A tolerance that cannot fail"): torchvision's EfficientNet-B0 (weights=None, nothing
downloaded), whose logits are about 1e-13 in magnitude from its random initialization."""
import torch
from torch import nn


def efficientnet_b0() -> nn.Module:
    """torchvision's EfficientNet-B0, 1000 classes; image [batch, 3, 64, 64] float32 -> logits [batch, 1000]."""
    import torchvision

    torch.manual_seed(0)
    return torchvision.models.efficientnet_b0(weights=None)
