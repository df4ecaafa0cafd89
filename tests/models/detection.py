"""torchvision's SSDlite (MobileNetV3-Large backbone, 5 classes, random weights, nothing downloaded) on a batch of
one 320 x 320 image: forward(image [1, 3, 320, 320]) -> (boxes [n, 4], scores [n], labels [n]), n depending on
the values (how many detections pass the score threshold): tests/e2e/test_data_dependent_shapes.py."""
import torch


class FirstImage(torch.nn.Module):
    """torchvision's SSDlite on a batch of one image: its boxes, scores and labels."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image):
        found = self.model([image[0]])[0]
        return found["boxes"], found["scores"], found["labels"]


def ssdlite():
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                       num_classes=5)
    return FirstImage(model.eval()).eval()
