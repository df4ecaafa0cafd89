# What the Python API raises (doc/python-api.md): an unknown name, a folder in use, a flipped byte.
from pathlib import Path

from nnx.export_conformance import ConformanceError, FolderInUse, UsageError, run_profile, verify_artifacts

try:
    run_profile("feedfwd-fp32-tflite", "try/errors/")
except UsageError as error:
    print(type(error).__name__, error)
record = run_profile("feedfwd-fp32-torchscript", "try/errors/")
try:
    run_profile("feedfwd-fp32-torchscript", "try/errors/")  # the folder holds the first run's files
except FolderInUse as error:
    print(type(error).__name__, error)
model = Path("try/errors", record["artifacts"]["directory"], "model.onnx")
model.write_bytes(model.read_bytes() + b"x")
try:
    verify_artifacts(record, "try/errors/")
except ConformanceError as error:
    print(type(error).__name__, error.problems)
