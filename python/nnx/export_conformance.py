"""Export conformance (``nnx.export-conformance/1``): what ONNX Runtime computes from an exported network.

A profile fixes everything a parity claim depends on; running it exports the model with PyTorch's real
exporter (in a worker process), checks the file with ``onnx.checker``, verifies every artifact's SHA-256,
loads it in ONNX Runtime and compares every logit with the native model. Each stage is recorded on its own::

    dependencies ─► export ─► check ─► load ─► parity

    from nnx.export_conformance import run_profile, run_profiles, execute, verify_artifacts, save_report, exit_code

    record = run_profile("feedfwd-fp32-dynamo", "artifacts/")   # a JSON-ready dict
    assert record["level"] == "executed"
    verify_artifacts(record, "artifacts/")   # refuses a changed, missing or extra file
    again = execute(record, "artifacts/")    # re-runs load + parity; hashes checked first
    report = run_profiles("all/", force=True)   # {format, status, profiles}: both tested profiles
    save_report(report, "conformance.json"); print(exit_code(report))

A :class:`ModuleProfile` tests the user's own module (``nnx.module-conformance/1``, record-format §10), as a
profile file's module object; :func:`check_module` takes an ``nn.Module`` object and example tensors, and
:func:`assert_conformant` raises ``AssertionError`` (the summary lines) unless the record passed::

    mp = ModuleProfile("convbn", "torchscript", "models.py:conv_bn",
                       inputs=[{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32"}],
                       dims={"batch": [2, 1, 3]})
    record = run_profile(mp, "artifacts/")
    again = execute(record, "artifacts/")     # a module record: stored inputs vs stored outputs, no Python
    assert_conformant(net, "artifacts/", torch.randn(2, 3, 8, 8), name="mine", exporter="torchscript",
                      dims={"batch": (0, [2, 1, 3])})

The signatures are those of the published original (``thekaveh-nnx`` 0.4.1), so code written for it runs
unchanged; ``force`` and ``onnxruntime`` are keyword-only additions.

One implementation: every function here calls the C++ core (``nnx._core``); records cross as JSON text
and come back as plain dicts and lists (``validate_record``, ``validate_records``, ``verify_artifacts``
and ``verify_artifacts_many`` hand the core the Python objects themselves, converted in C++ with the same
strictness as the text; src/python/python_json.h). Importing this module imports neither torch, onnx, onnxruntime nor
onnxscript; a profile run without them is a ``missing-dependency`` failure (exit 10), never a skip.

The exporter worker stays warm between calls (torch is imported once per process): it stops after 120 s
idle, at exit, on :func:`close_workers` or at the end of ``with workers():`` (nnx/_workers.py). It runs in this interpreter (``sys.executable``) with the worker shipped in the package
(``nnx/_worker/nnx_worker.py``); ``NNX_PYTHON`` and ``NNX_WORKER_SCRIPT`` override them. ONNX Runtime is
found in the core's order (src/runtime/library_search.h): the ``onnxruntime`` argument, ``NNX_ONNXRUNTIME_LIBRARY``, the bootstrap's copy baked
into a checkout build (a wheel bakes none), the ``libonnxruntime.so*`` of an installed ``onnxruntime``
wheel (``nnx-conformance[onnx-runtime]``; located without importing it), then the system loader's
``libonnxruntime.so.1``. A chosen library that fails is not replaced by a later one.

Errors: :class:`ConformanceError` (a ``ValueError``) for every refusal, whatever a public function is given;
its subclasses :class:`UsageError` (an unknown tested name, a symlinked folder under ``force``, a path
holding a NUL), :class:`ArgumentError` (a ``UsageError`` and a ``TypeError``: an argument of a type the
function does not take, such as None, a number or bytes for a path, bytes for a name, a count that is no
whole number), :class:`FolderInUse` (a ``UsageError``: a profile folder holding files without ``force``),
:class:`RuntimeUnavailable` (``execute`` without a usable ONNX Runtime), :class:`ArtifactIOError` (an
unreadable artifact) and :class:`WriteError` (an ``OSError`` too: a file the call writes could not be
written). Only a call Python itself refuses (a missing or unknown argument) is its own ``TypeError``, and
Ctrl-C its ``KeyboardInterrupt``.
"""

from __future__ import annotations

# The names live in one module per concept (the vocabulary, the boundary, profiles, running, the model,
# checking, reporting); this module is the API that gathers them, with exactly the names it always had.
from . import _core
from ._boundary import PathLike, _directory, _dumps, _is_sequence, _plain, _records_value
from ._checking import _not_verified, validate_record, validate_records, verify_artifacts, verify_artifacts_many
from ._errors import (ArgumentError, ArtifactIOError, ConformanceError, FolderInUse, RuntimeUnavailable, UsageError,
                      WriteError)
from ._model import BuiltModel, _torch_model, build_model
from ._module_check import assert_conformant, check_module
from ._module_profiles import ModuleProfile
from ._onnx_file_profiles import OnnxFileProfile
from ._profiles import PROFILES, Profile, _profile_item, load_profiles
from ._reporting import Records, check_output_paths, default_artifacts_root, exit_code, save_report, summary_lines
from ._signing import SIGNATURE_NAMESPACE, check_signature, generate_key, sign_document
from ._running import (_onnxruntime_library, _onnxruntime_wheel_library, _worker, execute, rejudge, run_profile,
                       run_profiles, runtime_matrix)
from ._vocabulary import _DEFAULTS, EXIT_CODES, FAILURE_STAGES, FAILURES, FORMAT, LEVELS, MODEL, STAGES
from ._workers import close_workers, set_worker_idle_timeout, workers

__all__ = [
    "EXIT_CODES",
    "FAILURES",
    "FAILURE_STAGES",
    "FORMAT",
    "LEVELS",
    "MODEL",
    "PROFILES",
    "SIGNATURE_NAMESPACE",
    "STAGES",
    "ArgumentError",
    "ArtifactIOError",
    "ConformanceError",
    "FolderInUse",
    "ModuleProfile",
    "OnnxFileProfile",
    "Profile",
    "RuntimeUnavailable",
    "UsageError",
    "WriteError",
    "assert_conformant",
    "build_model",
    "check_module",
    "check_output_paths",
    "check_signature",
    "close_workers",
    "execute",
    "exit_code",
    "generate_key",
    "rejudge",
    "run_profile",
    "run_profiles",
    "runtime_matrix",
    "save_report",
    "sign_document",
    "set_worker_idle_timeout",
    "summary_lines",
    "validate_record",
    "verify_artifacts",
    "workers",
]
