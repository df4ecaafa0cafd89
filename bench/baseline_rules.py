"""BASELINE for benchmarks only — not product code: what bench/baseline_validate.py's checks share.

The record format's vocabulary as a plain-Python validator spells it (keys, stages, failure classes, the
session), strict JSON reading and canonical text, and the profile settings rebuilt from a record (a tested
profile's, or a custom one's from its own fields) for the settings check.
"""
import json
import math
import re


FORMAT = "nnx.export-conformance/1"
RECORD_KEYS = {"format", "profile", "status", "failure", "level", "source", "config", "exporter", "opset",
               "artifacts", "versions", "runtime", "dtype", "input_cases", "tolerances", "model_state", "stages"}
STAGES = ["dependencies", "export", "check", "load", "parity"]
CLASSES = {"missing-dependency": "dependencies", "export-error": "export", "state-changed": "export",
           "checker-error": "check", "hash-mismatch": "load", "load-error": "load", "mismatch": "parity",
           "input-contract": "parity", "runtime-error": "parity"}
CASE_KEYS = {"name", "shape", "seed", "expect", "outcome", "passed", "failure", "max_abs_error", "max_rel_error",
             "detail"}
SESSION = {"intra_op_num_threads": 1, "inter_op_num_threads": 1, "graph_optimization_level": "ORT_ENABLE_ALL"}
ACTIVATIONS = {"elu", "selu", "tanh", "relu", "softmax", "sigmoid", "softplus", "leaky_relu"}
TESTED = {"feedfwd-fp32-torchscript": "torchscript", "feedfwd-fp32-dynamo": "dynamo"}
PLAIN = re.compile(r"[A-Za-z0-9._-]+\Z")
SHA = re.compile(r"[0-9a-f]{64}\Z")
MAX_UNITS, MAX_HIDDEN, MAX_WEIGHTS, MAX_VALUES, MAX_BATCHES = 65536, 64, 1 << 24, 1 << 24, 64


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), allow_nan=False, ensure_ascii=False)


def load_strict(path):
    def no_duplicates(pairs):
        obj = {}
        for k, v in pairs:
            if k in obj:
                raise ValueError(f"duplicate key {k!r}")
            obj[k] = v
        return obj

    def no_constant(name):
        raise ValueError(f"{name} is not JSON")

    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"), object_pairs_hook=no_duplicates, parse_constant=no_constant)


def exact_keys(obj, where, keys, out):
    for k in keys:
        if k not in obj:
            out.append(f"{where}.{k}: missing")
    for k in obj:
        if k not in keys:
            out.append(f"{where}.{k}: unknown key")


def normalize_path(p):
    if not isinstance(p, str) or not p or "\\" in p or ":" in p or p.startswith("/"):
        return None
    parts = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    normal = "/".join(parts)
    return None if normal in ("", ".", "..") else normal


def cases_for(batches, input_dim):
    cases = [{"name": f"batch-{b}", "shape": [b, input_dim], "seed": 1000 + b, "expect": "match"} for b in batches]
    cases.append({"name": f"width-{input_dim + 1}", "shape": [3, input_dim + 1], "seed": 2000, "expect": "rejected"})
    return cases


def settings_of(name, exporter, opset, export_batch, dynamic, batches, rtol, atol, provider, model):
    return {"tolerances": {"rtol": float(rtol), "atol": float(atol)}, "input cases": cases_for(batches, model["input_dim"]),
            "dtype": "float32", "runtime": ["onnxruntime", provider],
            "exporter options": {"exporter": exporter, "dynamo": exporter == "dynamo", "opset_version": opset,
                                 "dynamic_batch": dynamic, "export_batch": export_batch,
                                 "input_names": ["features"], "output_names": ["logits"]},
            "model config": model, "artifact directory": name}


def tested_settings(name):
    model = {"net": "feed_fwd", "input_dim": 4, "hidden_dims": [8], "output_dim": 2, "activation": "relu",
             "dropout": 0.0, "weights": {"generator": "torch.Generator", "seed": 0, "distribution": "normal",
                                         "std": 0.5}}
    return settings_of(name, TESTED[name], 17, 2, True, [1, 2, 3, 7], 1e-4, 1e-5, "CPUExecutionProvider", model)


def record_settings(r):
    cfg = dict(r.get("config") or {}) if isinstance(r.get("config"), dict) else r.get("config")
    if isinstance(cfg, dict):
        cfg.pop("weights_sha256", None)
        if is_num(cfg.get("dropout")):
            cfg["dropout"] = float(cfg["dropout"])
        if isinstance(cfg.get("weights"), dict) and is_num(cfg["weights"].get("std")):
            cfg["weights"] = {**cfg["weights"], "std": float(cfg["weights"]["std"])}
    tol = r.get("tolerances") if isinstance(r.get("tolerances"), dict) else {}
    cases = r.get("input_cases")
    if isinstance(cases, list):
        cases = [{k: c.get(k) for k in ("name", "shape", "seed", "expect")} if isinstance(c, dict) else c
                 for c in cases]
    runtime = r.get("runtime") if isinstance(r.get("runtime"), dict) else {}
    return {"tolerances": {k: float(tol[k]) if is_num(tol.get(k)) else tol.get(k) for k in ("rtol", "atol")},
            "input cases": cases, "dtype": r.get("dtype"), "runtime": [runtime.get("name"), runtime.get("provider")],
            "exporter options": (r.get("exporter") or {}).get("options") if isinstance(r.get("exporter"), dict) else None,
            "model config": cfg, "artifact directory": (r.get("artifacts") or {}).get("directory")
            if isinstance(r.get("artifacts"), dict) else None}


def rebuilt_settings(r, out):
    """Rebuilds the profile of a record with a non-tested name; appends every problem."""
    before = len(out)
    opts = (r.get("exporter") or {}).get("options") if isinstance(r.get("exporter"), dict) else None
    cfg = r.get("config")
    if not isinstance(opts, dict) or not isinstance(cfg, dict) or not isinstance(r.get("input_cases"), list):
        out.append("settings: do not rebuild into a valid profile")
        return None
    name, exporter = r.get("profile"), opts.get("exporter")
    if not isinstance(name, str) or not PLAIN.match(name) or name in (".", ".."):
        out.append("settings: profile name is not a plain name")
    if exporter not in ("torchscript", "dynamo") or opts.get("dynamo") is not (exporter == "dynamo"):
        out.append("settings: exporter must be torchscript or dynamo, with dynamo matching")
    for key in ("opset_version", "export_batch"):
        if not is_int(opts.get(key)) or not 1 <= opts[key] <= MAX_UNITS:
            out.append(f"settings: {key} must be an integer in 1..{MAX_UNITS}")
    if not isinstance(opts.get("dynamic_batch"), bool):
        out.append("settings: dynamic_batch must be a boolean")
    if opts.get("input_names") != ["features"] or opts.get("output_names") != ["logits"]:
        out.append("settings: input_names/output_names must be [\"features\"]/[\"logits\"]")
    if set(opts) != {"exporter", "dynamo", "opset_version", "dynamic_batch", "export_batch", "input_names",
                     "output_names"}:
        out.append("settings: exporter options must hold exactly the 7 keys")
    model = {k: v for k, v in cfg.items() if k != "weights_sha256"}
    w = model.get("weights")
    if set(model) != {"net", "input_dim", "hidden_dims", "output_dim", "activation", "dropout", "weights"} or \
            not isinstance(w, dict) or set(w) != {"generator", "seed", "distribution", "std"}:
        out.append("settings: config keys differ from a model config's")
        return None
    dims = [model["input_dim"], *model["hidden_dims"], model["output_dim"]] if isinstance(model["hidden_dims"], list) else []
    if model["net"] != "feed_fwd" or not dims or not all(is_int(d) and 1 <= d <= MAX_UNITS for d in dims):
        out.append("settings: model widths must be integers in 1..65536")
    elif len(dims) - 2 > MAX_HIDDEN:
        out.append("settings: at most 64 hidden layers")
    elif sum(a * b + b for a, b in zip(dims, dims[1:])) > MAX_WEIGHTS:
        out.append("settings: at most 2^24 weights")
    if model["activation"] not in ACTIVATIONS:
        out.append("settings: unknown activation")
    if not is_num(model["dropout"]) or not math.isfinite(model["dropout"]) or not 0 <= model["dropout"] < 1:
        out.append("settings: dropout must be finite with 0 <= dropout < 1")
    if w["generator"] != "torch.Generator" or w["distribution"] != "normal" or not is_int(w["seed"]) or \
            not 0 <= w["seed"] < 1 << 63 or not is_num(w["std"]) or not math.isfinite(w["std"]) or w["std"] <= 0:
        out.append("settings: weights must be torch.Generator normal with a seed in [0, 2^63) and std > 0")
    batches = [c.get("shape", [None])[0] for c in r["input_cases"] if isinstance(c, dict) and c.get("expect") == "match"]
    if not batches or len(batches) > MAX_BATCHES or not all(is_int(b) and 1 <= b <= MAX_UNITS for b in batches):
        out.append("settings: 1..64 batch sizes, each in 1..65536")
    elif dims and all(is_int(d) for d in dims) and max(batches) * max(dims) > MAX_VALUES:
        out.append("settings: max batch x widest layer exceeds 2^24 values")
    tol = r.get("tolerances") if isinstance(r.get("tolerances"), dict) else {}
    runtime = r.get("runtime") if isinstance(r.get("runtime"), dict) else {}
    if r.get("dtype") != "float32" or runtime.get("name") != "onnxruntime" or not runtime.get("provider"):
        out.append("settings: dtype float32, runtime onnxruntime and a provider are required")
    if len(out) > before:
        out.insert(before, "settings: do not rebuild into a valid profile")
        return None
    model["dropout"] = float(model["dropout"])
    model["weights"] = {**w, "std": float(w["std"])}
    return settings_of(name, exporter, opts["opset_version"], opts["export_batch"], opts["dynamic_batch"], batches,
                       tol.get("rtol"), tol.get("atol"), runtime["provider"], model)
