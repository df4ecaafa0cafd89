"""nnx: proves what ONNX Runtime computes from an exported PyTorch network.

The Python API is :mod:`nnx.export_conformance`; the work is done by the C++ core (the extension module
``nnx._core``). Importing ``nnx`` or ``nnx.export_conformance`` imports neither torch, onnx, onnxruntime
nor onnxscript: the exporters run in a worker process only when a profile runs.
"""

__all__ = ["__version__", "ModuleProfile", "OnnxFileProfile", "assert_conformant", "check_module"]

# The module- and ONNX-file-profile names, from nnx.export_conformance on first use (importing nnx stays light).
_FROM_API = ("ModuleProfile", "OnnxFileProfile", "assert_conformant", "check_module")


def __getattr__(name: str):
    if name == "__version__":
        from ._core import version

        return version()
    if name in _FROM_API:
        from . import export_conformance

        return getattr(export_conformance, name)
    raise AttributeError(f"module 'nnx' has no attribute {name!r}")
