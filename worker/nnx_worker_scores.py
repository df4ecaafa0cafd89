"""The float64 oracle's scores of an integer output (doc/record-format.md §10, "Integer and bool outputs").

An index a module returns (an argmax label) is compared exactly; where the runtime picked another index, the
core asks whether the float64 oracle separates the two candidates by more than the tolerance. For that, the
oracle's forward runs under `ScoreTracer`, which notes every argmax/argmin (aten.argmax, aten.argmin) with the
float64 tensor it chose from. An integer output that is one of those results (the same storage and shape) gets
as its oracle the scores: that input with its reduced axis moved last, reshaped to the output's shape +
[candidates] (the whole tensor flattened when no axis was given). Any other integer output, and every bool
output, has no scores: the oracle cannot tell, and the core counts every difference.
"""

from __future__ import annotations


def ScoreTracer():
    """A TorchDispatchMode noting (result, scores) for every argmax/argmin on a float64 tensor."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    watched = {torch.ops.aten.argmax.default, torch.ops.aten.argmin.default}

    class _Tracer(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.noted = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            if func in watched and args and isinstance(args[0], torch.Tensor) and args[0].dtype == torch.float64:
                dim = args[1] if len(args) > 1 else kwargs.get("dim")
                source = args[0].detach()
                moved = source.reshape(-1) if dim is None else source.movedim(dim, -1)
                self.noted.append((result, moved.shape[-1] if moved.dim() else 1, moved))
            return result

    return _Tracer()


def scores_of(tracer, leaf):
    """The float64 scores `leaf` was chosen from (its shape + [candidates]), or None."""
    for result, count, moved in tracer.noted:
        if result.data_ptr() == leaf.data_ptr() and result.shape == leaf.shape and result.dtype == leaf.dtype:
            return moved.contiguous().reshape(list(leaf.shape) + [count])
    return None
