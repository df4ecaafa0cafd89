"""A module whose export raises a message of about 11 000 characters, its advice at the end: the forward
raises only while the legacy exporter traces it, so PyTorch's reference and the state proof run."""
import torch

ADVICE = "register a pytree node for your output type: " + "see the exporter's advice. " * 400


class LongExportMessage(torch.nn.Module):
    def forward(self, x):
        if torch.jit.is_tracing():
            raise RuntimeError("the exporter cannot trace this: " + ADVICE + "END OF ADVICE")
        return x + 1


def long_export_message():
    return LongExportMessage()
