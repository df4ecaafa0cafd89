"""nnx: proves what ONNX Runtime computes from an exported PyTorch network.

The Python API is :mod:`nnx.export_conformance`; the work is done by the C++ core (the extension module
``nnx._core``). Importing ``nnx`` or ``nnx.export_conformance`` imports neither torch, onnx, onnxruntime
nor onnxscript: the exporters run in a worker process only when a profile runs.
"""

__all__ = ["__version__"]


def __getattr__(name: str):
    if name == "__version__":
        from ._core import version

        return version()
    raise AttributeError(f"module 'nnx' has no attribute {name!r}")
