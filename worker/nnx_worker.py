"""nnx worker: the Python-only half of nnx-conformance (PyTorch export and the ONNX checker).

Contract (full protocol in worker/PROTOCOL.md):
  * started by the C++ core as `<python> <repo>/worker/nnx_worker.py`;
  * reads requests from stdin, one JSON object per line, and answers each with exactly ONE JSON line
    written to file descriptor 3 (stdout and stderr are the core's log capture: exporters print there
    at the C level, so they never carry protocol data);
  * every response is {"ok": true, ...} or {"ok": false, "error": "..."} (a protocol-level problem:
    unknown op, malformed request, parameters that do not fit the model);
  * ops: ping, dependencies, export, reference, check;
  * exits (status 0) when stdin closes;
  * imports neither torch, onnx nor numpy at start-up, so `dependencies` works where they are missing.

The core owns the weights: the export request carries every parameter as base64 little-endian float32
and the worker copies them in exactly. The module can also be imported (its functions are the steps of
each op); only running it as a script serves requests.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import sys
import tempfile
import time
import traceback
import warnings

import nnx_torch_model  # beside this script (sys.path[0]); imports no torch until a network is built

RESPONSE_FD = 3
LOG_LINES = 5  # the export detail's log: the last 5 lines of captured stdout (record-format §4)
WARNING_CHARS = 200  # a warning's first line is cut here (record-format §4)
PLAIN_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
PIP_NAMES = {"onnxruntime": "onnxruntime", "onnxscript": "onnxscript", "onnx": "onnx", "torch": "torch",
             "numpy": "numpy"}
ENVIRONMENT_MODULES = ("numpy", "torch", "onnx", "onnxscript")
ACTIVATIONS = nnx_torch_model.ACTIVATIONS
EXPORTERS = ("torchscript", "dynamo")


class ProtocolError(Exception):
    """A request the worker cannot serve: answered with {"ok": false, "error": str(exc)}."""


# --------------------------------------------------------------------------------------------
# dependencies


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@functools.cache
def _installed_version(name: str) -> str | None:
    """The version in the installed distribution's metadata of module `name`, or None. Read once per worker
    (a scan of every distribution on sys.path costs about a millisecond, and each request reports the
    environment): a worker serves one run, and the run does not install packages under itself."""
    try:
        return importlib.metadata.version(PIP_NAMES.get(name, name))
    except Exception:  # noqa: BLE001 - a version is diagnostic only
        return None


def _module_version(module) -> str | None:
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    return _installed_version(module.__name__)


def _try_import(name: str):
    """Returns (module, None) or (None, "<ExcType>: <message>"). Findable AND importable."""
    try:
        spec = importlib.util.find_spec(name)
    except BaseException as exc:  # noqa: BLE001 - a broken parent package counts as missing
        return None, _describe(exc)
    if spec is None:
        return None, f"ModuleNotFoundError: No module named '{name}'"
    try:
        return importlib.import_module(name), None
    except BaseException as exc:  # noqa: BLE001 - a broken install (even SystemExit) counts as missing
        return None, _describe(exc)


def op_dependencies(req: dict) -> dict:
    modules = req.get("modules")
    if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
        raise ProtocolError("dependencies: 'modules' must be a list of module names")
    versions, problems, import_seconds = {}, [], {}
    for name in modules:
        started = time.perf_counter()
        module, problem = _try_import(name)
        import_seconds[name] = time.perf_counter() - started
        if problem is None:
            versions[name] = _module_version(module)
        else:
            problems.append(f"{name}: {problem}; install with: pip install {PIP_NAMES.get(name, name)}")
    return {"ok": True, "versions": versions, "problems": problems, "environment": _environment(versions),
            "import_seconds": import_seconds}


def _environment(known: dict) -> dict:
    env = {"python": platform.python_version(), "platform": platform.platform()}
    for name in ENVIRONMENT_MODULES:
        if name in known:
            env[name] = known[name]
        elif name in sys.modules:
            env[name] = _module_version(sys.modules[name])
        else:
            env[name] = _installed_version(name)  # metadata only: importing here could be slow or break
    return env


# --------------------------------------------------------------------------------------------
# the model

def feedfwd_class():
    """FeedFwdNN of doc/record-format.md §2 (worker/nnx_torch_model.py), defined on first use."""
    return nnx_torch_model.feedfwd_class()


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _model_config(cfg, op: str = "export") -> dict:
    if not isinstance(cfg, dict):
        raise ProtocolError(f"{op}: 'model' must be an object")
    if cfg.get("net") != "feed_fwd":
        raise ProtocolError(f"{op}: unknown net {cfg.get('net')!r} (only 'feed_fwd')")
    dims = [cfg.get("input_dim"), *(cfg.get("hidden_dims") or []), cfg.get("output_dim")]
    if not isinstance(cfg.get("hidden_dims"), list) or not all(_is_int(d) and d >= 1 for d in dims):
        raise ProtocolError(f"{op}: input_dim, hidden_dims and output_dim must be positive integers")
    if cfg.get("activation") not in ACTIVATIONS:
        raise ProtocolError(f"{op}: unknown activation {cfg.get('activation')!r}")
    dropout = cfg.get("dropout")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        raise ProtocolError(f"{op}: dropout must be a number in [0, 1)")
    return cfg


def _decode_tensor(entry, what: str, op: str = "export"):
    import numpy as np
    import torch

    if not isinstance(entry, dict) or not isinstance(entry.get("shape"), list) \
            or not all(_is_int(d) and d >= 0 for d in entry["shape"]) or not isinstance(entry.get("data"), str):
        raise ProtocolError(f"{op}: {what} needs 'shape' (list of sizes) and 'data' (base64)")
    try:
        raw = base64.b64decode(entry["data"], validate=True)
    except ValueError as exc:
        raise ProtocolError(f"{op}: {what}: data is not base64: {exc}") from None
    count = 1
    for d in entry["shape"]:
        count *= d
    if len(raw) != 4 * count:
        raise ProtocolError(f"{op}: {what}: {len(raw)} bytes for shape {entry['shape']} "
                            f"(expected {4 * count} bytes of float32)")
    array = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(entry["shape"])
    return torch.from_numpy(array.copy())


def build_model(cfg: dict, parameters, op: str = "export"):
    """The §2 network holding exactly the given parameters (names, order and shapes must match)."""
    if not isinstance(parameters, list):
        raise ProtocolError(f"{op}: 'parameters' must be a list")
    decoded = []
    for entry in parameters:
        if not isinstance(entry, dict):
            raise ProtocolError(f"{op}: every parameter must be an object")
        name = entry.get("name")
        decoded.append((name, entry.get("shape"), _decode_tensor(entry, f"parameter {name}", op)))
    try:
        return nnx_torch_model.build_network(cfg, decoded)
    except ValueError as exc:
        raise ProtocolError(f"{op}: {exc}") from None


# --------------------------------------------------------------------------------------------
# state snapshot (parameters and buffers, gradients, per-module training flags)


def snapshot(model) -> dict:
    def raw(t):
        t = t.detach().cpu().contiguous()
        return (str(t.dtype), tuple(t.shape), t.numpy().tobytes())

    values = {f"param:{n}": raw(p) for n, p in model.named_parameters()}
    values.update({f"buffer:{n}": raw(b) for n, b in model.named_buffers()})
    grads = {n: None if p.grad is None else raw(p.grad) for n, p in model.named_parameters()}
    modes = [(n, m.training) for n, m in model.named_modules()]
    return {"parameters": values, "gradients": grads, "modes": modes}


def give_mixed_mode_and_gradients(model, example):
    """train() on the whole net, eval() on its first child; gradients from one CE backward pass."""
    import torch
    import torch.nn.functional as F

    model.train()
    next(iter(model.children())).eval()
    model.zero_grad(set_to_none=True)
    logits = model(example)
    labels = torch.zeros(logits.shape[0], dtype=torch.int64)
    F.cross_entropy(logits, labels).backward()


# --------------------------------------------------------------------------------------------
# export


@contextlib.contextmanager
def capture_fds():
    """Redirects file descriptors 1 and 2 (C level included) to temp files; yields a box whose "text" is
    the captured stdout afterwards. The captured stderr is passed on to the real fd 2 (the core's log)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as out_sink, tempfile.TemporaryFile() as err_sink:
        os.dup2(out_sink.fileno(), 1)
        os.dup2(err_sink.fileno(), 2)
        box = {"text": ""}
        try:
            yield box
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            box["text"] = _tail(out_sink)
            text = _tail(err_sink)
            if text:
                sys.stderr.write(text)
                sys.stderr.flush()


def _tail(sink) -> str:
    size = sink.seek(0, os.SEEK_END)
    sink.seek(max(0, size - (256 << 10)))
    return sink.read().decode("utf-8", errors="replace")


def _last_lines(text: str, count: int) -> str:
    return "\n".join(text.splitlines()[-count:])


def _warning_text(w) -> str:
    lines = str(w.message).splitlines()
    return f"{w.category.__name__}: {lines[0][:WARNING_CHARS] if lines else ''}".rstrip()


def call_exporter(model, example, path: str, options: dict) -> None:
    """The raw exporter call: torch.onnx.export of `model` to `path` with the request's options."""
    import torch

    names = {"input_names": list(options["input_names"]), "output_names": list(options["output_names"])}
    if options["dynamo"]:
        dynamic_shapes = ({0: torch.export.Dim("batch", min=1)},) if options["dynamic_batch"] else None
        torch.onnx.export(model, (example,), path, dynamo=True, opset_version=options["opset_version"],
                          dynamic_shapes=dynamic_shapes, **names)
    else:
        dynamic_axes = None
        if options["dynamic_batch"]:
            dynamic_axes = {n: {0: "batch"} for n in names["input_names"] + names["output_names"]}
        torch.onnx.export(model, (example,), path, dynamo=False, opset_version=options["opset_version"],
                          dynamic_axes=dynamic_axes, **names)


def to_onnx(model, example, path: str, options: dict) -> None:
    """Exports in eval mode and leaves the model as it found it: every module's OWN training flag
    (the legacy exporter restores only the top-level flag, to every module, which would break a mixed
    mode) and every gradient tensor. Parameter values are not restored: an exporter that changes
    them must show up as a changed state, not be hidden."""
    modes = [(m, m.training) for m in model.modules()]
    grads = [(p, p.grad) for p in model.parameters()]
    try:
        model.eval()
        call_exporter(model, example, path, options)
    finally:
        for module, training in modes:
            module.training = training
        for param, grad in grads:
            if param.grad is not grad:
                param.grad = grad


def _export_options(req: dict) -> dict:
    exporter, options = req.get("exporter"), req.get("options")
    if exporter not in EXPORTERS:
        raise ProtocolError(f"export: unknown exporter {exporter!r} (torchscript or dynamo)")
    if not isinstance(options, dict):
        raise ProtocolError("export: 'options' must be an object")
    if options.get("exporter", exporter) != exporter or options.get("dynamo") is not (exporter == "dynamo"):
        raise ProtocolError(f"export: options {options.get('exporter')!r}/dynamo={options.get('dynamo')!r} "
                            f"contradict exporter {exporter!r}")
    for key in ("opset_version", "export_batch"):
        if not _is_int(options.get(key)) or options[key] < 1:
            raise ProtocolError(f"export: options.{key} must be a positive integer")
    if not isinstance(options.get("dynamic_batch"), bool):
        raise ProtocolError("export: options.dynamic_batch must be a boolean")
    for key in ("input_names", "output_names"):
        names = options.get(key)
        if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str) or not names[0]:
            raise ProtocolError(f"export: options.{key} must hold exactly one name")
    return options


def _list_files(root: str) -> list:
    found = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return sorted(found)


def _stat_key(path: str):
    try:
        st = os.stat(path, follow_symlinks=False)
        return (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def parse_export_request(req: dict) -> dict:
    """The checked fields of an export request: options, model config, output folder and model path.
    Raises ProtocolError naming the first problem (parameters and the example input are checked later,
    against the model)."""
    options = _export_options(req)
    cfg = _model_config(req.get("model"))
    output_dir, model_file = req.get("output_dir"), req.get("model_file", "model.onnx")
    if not isinstance(output_dir, str) or not os.path.isabs(output_dir):
        raise ProtocolError("export: 'output_dir' must be an absolute path")
    if not isinstance(model_file, str) or not PLAIN_NAME.match(model_file) or model_file in (".", ".."):
        raise ProtocolError("export: 'model_file' must be a plain file name")
    return {"options": options, "model": cfg, "output_dir": output_dir,
            "path": os.path.join(output_dir, model_file)}


def run_exporter(model, example, path: str, options: dict) -> dict:
    """Exports `model` to `path` once (to_onnx), watching it: every Python warning is recorded and fds 1
    and 2 are captured. Returns what the export response reports: exception, log, warnings, changed (the
    state parts that differ afterwards) and wrote_model (a regular file created or replaced at `path`)."""
    before = snapshot(model)
    old_stat = _stat_key(path)
    exception = None
    with warnings.catch_warnings(record=True) as caught, capture_fds() as log:
        warnings.simplefilter("always")
        try:
            to_onnx(model, example, path, options)
        except Exception as exc:  # noqa: BLE001 - the exporter raising is an outcome, not a worker error
            exception = _describe(exc)
    after = snapshot(model)
    changed = sorted(part for part in ("parameters", "gradients", "modes") if before[part] != after[part])
    new_stat = _stat_key(path)
    return {
        "exception": exception,
        "log": _last_lines(log["text"], LOG_LINES),
        "warnings": sorted({_warning_text(w) for w in caught}),
        "changed": changed,
        "wrote_model": os.path.isfile(path) and not os.path.islink(path) and new_stat != old_stat,
    }


def op_export(req: dict) -> dict:
    plan = parse_export_request(req)
    options, cfg = plan["options"], plan["model"]
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"export: torch is not importable: {_describe(exc)}") from None

    model = build_model(cfg, req.get("parameters"))
    example = _decode_tensor(req.get("example_input"), "example_input")
    if list(example.shape) != [options["export_batch"], cfg["input_dim"]]:
        raise ProtocolError(f"export: example_input shape {list(example.shape)} is not "
                            f"[export_batch, input_dim] = [{options['export_batch']}, {cfg['input_dim']}]")
    torch.manual_seed(0)  # dropout masks in the gradient pass are reproducible
    give_mixed_mode_and_gradients(model, example)
    os.makedirs(plan["output_dir"], exist_ok=True)
    outcome = run_exporter(model, example, plan["path"], options)
    changed = outcome["changed"]
    return {
        "ok": True,
        "exception": outcome["exception"],
        "log": outcome["log"],
        "warnings": outcome["warnings"],
        "changed": changed,
        "model_state": {part: part not in changed for part in ("parameters", "gradients", "modes")},
        "wrote_model": outcome["wrote_model"],
        "files": _list_files(plan["output_dir"]),
    }


# --------------------------------------------------------------------------------------------
# reference


def _encode_tensor(tensor) -> dict:
    array = tensor.detach().cpu().contiguous().numpy().astype("<f4", copy=False)
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode("ascii")}


def _identical(a, b) -> bool:
    """a == b with the same types throughout: 1, 1.0 and True spell three different requests."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_identical(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_identical, a, b))
    return a == b


# The last reference network, in eval mode, with the model and parameters of the request that built it.
# A run's profiles of one model (its exporters and options) ask for the same network: it is built once.
# Only a reference request builds or reads it, and forwarding under no_grad leaves it as it was. Only a
# small network is kept (its parameters' text below KEEP_REFERENCE_BYTES): there building is most of a
# request's cost, while keeping a large one would hold its weights and their text until the next request.
_last_reference = None  # (model, parameters, network)
KEEP_REFERENCE_BYTES = 1 << 20


def _reference_network(cfg: dict, parameters):
    global _last_reference
    if _last_reference is not None and _identical(_last_reference[0], cfg) \
            and _identical(_last_reference[1], parameters):
        return _last_reference[2]
    _last_reference = None  # a request that cannot be built leaves nothing behind
    network = build_model(cfg, parameters, "reference")
    network.eval()
    if sum(len(entry["data"]) for entry in parameters) < KEEP_REFERENCE_BYTES:  # all there: it was built
        _last_reference = (cfg, parameters, network)
    return network


def op_reference(req: dict) -> dict:
    """The §2 network in eval mode under torch.no_grad(), on each given float32 input: raw float32
    outputs (base64), bit for bit what PyTorch computed."""
    cfg = _model_config(req.get("model"), "reference")
    inputs = req.get("inputs")
    if not isinstance(inputs, list) or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in inputs):
        raise ProtocolError("reference: 'inputs' must be a list of {name, shape, data}")
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"reference: torch is not importable: {_describe(exc)}") from None
    model = _reference_network(cfg, req.get("parameters"))
    outputs = []
    with torch.no_grad():
        for entry in inputs:
            x = _decode_tensor(entry, f"input {entry['name']}", "reference")
            if x.dim() != 2 or x.shape[1] != cfg["input_dim"]:
                raise ProtocolError(f"reference: input {entry['name']} shape {list(x.shape)} is not [batch, "
                                    f"{cfg['input_dim']}]")
            outputs.append({"name": entry["name"], **_encode_tensor(model(x))})
    return {"ok": True, "outputs": outputs, "environment": _environment({})}


# --------------------------------------------------------------------------------------------
# check


def _signature(values) -> list:
    import onnx

    out = []
    for v in values:
        entry = {"name": v.name, "dtype": None, "shape": None}
        if v.type.HasField("tensor_type"):
            tt = v.type.tensor_type
            entry["dtype"] = onnx.TensorProto.DataType.Name(tt.elem_type).lower()
            if tt.HasField("shape"):
                entry["shape"] = [d.dim_param if d.HasField("dim_param") else
                                  d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        else:
            entry["dtype"] = v.type.WhichOneof("value")
        out.append(entry)
    return out


def _graph_tensors(graph):
    """Every TensorProto of a graph: initializers, sparse initializers, node attributes, subgraphs."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        yield from _node_tensors(node)


def _node_tensors(node):
    for attr in node.attribute:
        if attr.HasField("t"):
            yield attr.t
        yield from attr.tensors
        if attr.HasField("sparse_tensor"):
            yield attr.sparse_tensor.values
            yield attr.sparse_tensor.indices
        for sparse in attr.sparse_tensors:
            yield sparse.values
            yield sparse.indices
        if attr.HasField("g"):
            yield from _graph_tensors(attr.g)
        for sub in attr.graphs:
            yield from _graph_tensors(sub)


def external_locations(model) -> list:
    import onnx

    tensors = list(_graph_tensors(model.graph))
    for function in model.functions:
        for node in function.node:
            tensors.extend(_node_tensors(node))
    found = set()
    for tensor in tensors:
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            for entry in tensor.external_data:
                if entry.key == "location":
                    found.add(entry.value)
    return sorted(found)


def op_check(req: dict) -> dict:
    path = req.get("path")
    if not isinstance(path, str) or not os.path.isabs(path):
        raise ProtocolError("check: 'path' must be an absolute path")
    try:
        import onnx
    except BaseException as exc:  # noqa: BLE001
        raise ProtocolError(f"check: onnx is not importable: {_describe(exc)}") from None
    error = None
    try:
        onnx.checker.check_model(path, full_check=True)
    except Exception as exc:  # noqa: BLE001 - the checker's verdict is the outcome
        error = _describe(exc)
    response = {"ok": True, "error": error, "opset": None, "ir_version": None, "producer": None,
                "inputs": None, "outputs": None, "external_data": None}
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        response["error"] = error or f"cannot load the model: {_describe(exc)}"
        return response
    response.update({
        "opset": {(o.domain or "ai.onnx"): o.version for o in model.opset_import},
        "ir_version": model.ir_version,
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "inputs": _signature(model.graph.input),
        "outputs": _signature(model.graph.output),
        "external_data": external_locations(model),
    })
    return response


# --------------------------------------------------------------------------------------------
# the loop


OPS = {"ping": lambda req: {"ok": True}, "dependencies": op_dependencies, "export": op_export,
       "reference": op_reference, "check": op_check}


def handle(line: bytes) -> dict:
    try:
        req = json.loads(line)
    except ValueError as exc:
        return {"ok": False, "error": f"request is not JSON: {exc}"}
    if not isinstance(req, dict):
        return {"ok": False, "error": "request must be a JSON object"}
    op = OPS.get(req.get("op"))
    if op is None:
        return {"ok": False, "error": f"unknown op {req.get('op')!r} (known: {', '.join(sorted(OPS))})"}
    try:
        return op(req)
    except ProtocolError as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - never die on a request; report it
        traceback.print_exc()
        return {"ok": False, "error": f"internal error in {req.get('op')}: {_describe(exc)}"}


def write_response(fd: int, response: dict) -> None:
    try:
        text = json.dumps(response, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:  # never send non-strict JSON
        text = json.dumps({"ok": False, "error": f"internal error: unserialisable response: {_describe(exc)}"})
    data = (text + "\n").encode("utf-8", errors="replace")  # a lone surrogate becomes "?", never bad UTF-8
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main() -> int:
    try:
        os.fstat(RESPONSE_FD)
    except OSError:
        print("nnx_worker: file descriptor 3 (the response channel) is not open", file=sys.stderr)
        return 2
    os.set_inheritable(RESPONSE_FD, False)  # exporter subprocesses never hold the response channel
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        response = handle(line)
        try:
            write_response(RESPONSE_FD, response)
        except BrokenPipeError:
            return 0


def serve() -> None:
    """Serves requests until stdin closes (main), then ends the process with main's status."""
    status = main()
    # Skip the interpreter's teardown (seconds after a dynamo export): every file is closed, every
    # answer written; only the log streams need flushing.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(status)


if __name__ == "__main__":
    serve()
