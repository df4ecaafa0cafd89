#!/usr/bin/env python3
"""BASELINE for benchmarks only — not product code.

A plain-Python validator of record-format §6, as a user would write it next to their export script:
json (strict: duplicate keys and NaN/Infinity refused), re and math only. It applies the same rules as
`nnx-conformance validate` (every problem listed) so the two can be timed on the same report.

  baseline_validate.py FILE        FILE: one record or a report {format, status, profiles}
Exit 0 when every record is valid, 1 otherwise (problems on stderr).
"""
import json
import math
import re
import sys

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


def check_stages(r, out):
    stages = r.get("stages")
    view = {}
    if not isinstance(stages, dict):
        out.append("stages: must be an object")
        return None
    for k in stages:
        if k not in STAGES:
            out.append(f"stages.{k}: not one of the five stages")
    blocked = None
    for s in STAGES:
        st = stages.get(s)
        if not isinstance(st, dict):
            out.append(f"stages.{s}: missing or not an object")
            continue
        exact_keys(st, f"stages.{s}", {"status", "failure", "detail"}, out)
        status, failure = st.get("status"), st.get("failure")
        if status not in ("passed", "failed", "not_run"):
            out.append(f"stages.{s}.status: unknown status {status!r}")
            continue
        if status == "failed":
            if failure is None:
                out.append(f"stages.{s}: failed without a failure class")
            elif CLASSES.get(failure) != s:
                out.append(f"stages.{s}.failure: {failure!r} is not a failure class of {s}")
                failure = None
        elif failure is not None:
            out.append(f"stages.{s}.failure: {failure!r} on a stage that did not fail")
        if blocked and status != "not_run":
            out.append(f"stages.{s}: ran after {blocked} did not pass")
        if not blocked and status != "passed":
            blocked = s
        view[s] = (status, failure if status == "failed" else None)
    return view if len(view) == 5 else None


def check_cases(r, view, out):
    cases = r.get("input_cases")
    if not isinstance(cases, list):
        out.append("input_cases: must be a list")
        return
    parity = view["parity"] if view else (None, None)
    typed, valid = True, 0
    for i, c in enumerate(cases):
        label = f"input_cases[{i}]"
        if not isinstance(c, dict):
            out.append(f"{label}: must be an object")
            typed = False
            continue
        before = len(out)
        exact_keys(c, label, CASE_KEYS, out)
        valid += c.get("expect") == "match"
        if not isinstance(c.get("name"), str) or not c["name"]:
            out.append(f"{label}.name: must be a non-empty string")
        s = c.get("shape")
        if not (isinstance(s, list) and len(s) == 2 and all(is_int(d) and 1 <= d <= MAX_UNITS + 1 for d in s)
                and s[0] * s[1] <= MAX_VALUES):
            out.append(f"{label}.shape: not two integers 1..65537 with a product <= 2^24")
        if not is_int(c.get("seed")) or not 0 <= c["seed"] < 1 << 63:
            out.append(f"{label}.seed: not an integer in [0, 2^63)")
        if c.get("expect") not in ("match", "rejected"):
            out.append(f"{label}.expect: must be match or rejected")
        if c.get("outcome") not in (None, "match", "mismatch", "rejected", "accepted", "error"):
            out.append(f"{label}.outcome: an outcome no run gives")
        if not isinstance(c.get("passed"), bool):
            out.append(f"{label}.passed: must be a boolean")
        if c.get("failure") is not None and CLASSES.get(c["failure"]) != "parity":
            out.append(f"{label}.failure: not a parity failure class")
        for k in ("max_abs_error", "max_rel_error"):
            v = c.get(k)
            if v is not None and not (is_num(v) and math.isfinite(v) and v >= 0):
                out.append(f"{label}.{k}: must be null or a finite number >= 0")
        if c.get("detail") is not None and not isinstance(c["detail"], str):
            out.append(f"{label}.detail: must be null or a string")
        if len(out) > before:
            typed = False
            continue
        outcome, failure, passed = c["outcome"], c["failure"], c["passed"]
        errors = c["max_abs_error"] is not None, c["max_rel_error"] is not None
        if outcome is None:
            if passed or failure is not None or any(errors) or c["detail"] is not None:
                out.append(f"{label}: a case without an outcome must be blank")
        else:
            table = {("match", "match"): None, ("mismatch", "match"): "mismatch", ("rejected", "match"): "input-contract",
                     ("rejected", "rejected"): None, ("accepted", "rejected"): "input-contract",
                     ("error", "match"): "runtime-error", ("error", "rejected"): "runtime-error"}
            key = (outcome, c["expect"])
            if key not in table:
                out.append(f"{label}: outcome {outcome!r} is not given for expect {c['expect']!r}")
            elif table[key] != failure:
                out.append(f"{label}: outcome {outcome!r} with failure {failure!r} is not allowed")
            if passed != (failure is None):
                out.append(f"{label}: passed {passed} with failure {failure!r}")
            compared = outcome == "match" or (outcome == "mismatch" and any(errors))
            if compared and (not all(errors) or c["detail"] is not None):
                out.append(f"{label}: a compared outcome carries both errors and a null detail")
            if not compared and (any(errors) or c["detail"] is None):
                out.append(f"{label}: outcome {outcome!r} carries null errors and a string detail")
        if parity[0] == "not_run" and outcome is not None:
            out.append(f"{label}: an outcome although parity did not run")
        if parity[0] in ("passed", "failed") and outcome is None:
            out.append(f"{label}: no outcome although parity ran")
        if parity[0] == "passed" and passed is not True:
            out.append(f"stages.parity: passed although {label} did not pass")
    if not valid:
        out.append("input_cases: no valid (match) case")
    if parity[0] == "failed" and parity[1] is not None and typed:
        failures = [c["failure"] for c in cases]
        first = next((k for k in ("runtime-error", "mismatch", "input-contract") if k in failures), None)
        if first != parity[1]:
            out.append(f"stages.parity.failure: {parity[1]!r} is not the first class of its failing cases ({first!r})")


def check_model_state(r, view, out):
    state = r.get("model_state")
    if state is not None:
        if not isinstance(state, dict):
            out.append("model_state: must be null or an object")
            return
        exact_keys(state, "model_state", {"parameters", "gradients", "modes"}, out)
        if not all(isinstance(state.get(k), bool) for k in ("parameters", "gradients", "modes")):
            out.append("model_state: parts must be booleans")
            return
    if not view:
        return
    status, failure = view["export"]
    changed = state is not None and not all(state.values())
    if status == "not_run" and state is not None:
        out.append("model_state: present although the export did not run")
    elif status == "passed" and (state is None or changed):
        out.append("model_state: not all true after a passed export")
    elif failure == "state-changed" and not changed:
        out.append("model_state: shows no change after state-changed")
    elif status == "failed" and failure not in (None, "state-changed") and changed:
        out.append(f"model_state: shows a change after {failure}")


def check_artifacts(r, view, out):
    a = r.get("artifacts")
    if not isinstance(a, dict):
        out.append("artifacts: must be an object")
        return
    exact_keys(a, "artifacts", {"directory", "model", "files"}, out)
    if not isinstance(a.get("directory"), str):
        out.append("artifacts.directory: must be a string")
    if a.get("model") != "model.onnx":
        out.append("artifacts.model: must be \"model.onnx\"")
    files = a.get("files")
    if not isinstance(files, list):
        out.append("artifacts.files: must be a list")
        return
    seen, models = set(), 0
    for i, f in enumerate(files):
        where = f"artifacts.files[{i}]"
        if not isinstance(f, dict):
            out.append(f"{where}: must be an object")
            continue
        exact_keys(f, where, {"path", "role", "bytes", "sha256"}, out)
        normal = normalize_path(f.get("path"))
        if normal is None:
            out.append(f"{where}.path: not a valid artifact path")
        elif normal in seen:
            out.append(f"{where}.path: listed twice")
        seen.add(normal)
        if f.get("role") not in ("model", "external-data", "sidecar"):
            out.append(f"{where}.role: unknown role")
        elif f["role"] == "model":
            models += 1
            if normal is not None and normal != "model.onnx":
                out.append(f"{where}: role model but not model.onnx")
        if not is_int(f.get("bytes")) or f["bytes"] < 0:
            out.append(f"{where}.bytes: must be a non-negative integer")
        if not isinstance(f.get("sha256"), str) or not SHA.match(f["sha256"]):
            out.append(f"{where}.sha256: not 64 lowercase hex digits")
    checked = view and view["check"][0] == "passed"
    if checked and models != 1:
        out.append("artifacts.files: a checked record lists exactly one model entry")


def record_problems(r):
    if not isinstance(r, dict):
        return ["record: must be an object"]
    out = [f"record.{k}: missing" for k in sorted(RECORD_KEYS - set(r))]
    out += [f"record.{k}: unknown key" for k in sorted(set(r) - RECORD_KEYS)]
    try:  # strict JSON: survives a canonical round trip unchanged
        if json.loads(canonical(r)) != r:
            out.append("not strict JSON: no canonical round trip")
    except ValueError as e:
        out.append(f"not strict JSON: {e}")
    if r.get("format") != FORMAT:
        out.append(f"format: must be {FORMAT!r}")
    if not isinstance(r.get("profile"), str):
        out.append("profile: must be a string")
    for k in ("source", "versions"):
        if not isinstance(r.get(k), dict):
            out.append(f"{k}: must be an object")
    cfg = r.get("config")
    if not isinstance(cfg, dict) or not isinstance(cfg.get("weights_sha256"), str) or not SHA.match(cfg["weights_sha256"]):
        out.append("config.weights_sha256: missing or not 64 lowercase hex digits")
    ex = r.get("exporter")
    if not isinstance(ex, dict) or set(ex) != {"name", "options"} or not isinstance(ex.get("options"), dict):
        out.append("exporter: must be {name, options}")
    elif ex["name"] != ex["options"].get("exporter"):
        out.append("exporter.name: unlike exporter.options.exporter")
    rt = r.get("runtime")
    if not isinstance(rt, dict) or set(rt) != {"name", "version", "provider", "session"}:
        out.append("runtime: must be {name, version, provider, session}")
    elif canonical(rt["session"]) != canonical(SESSION):
        out.append("runtime.session: other session options")
    view = check_stages(r, out)
    if view:
        all_passed = all(v[0] == "passed" for v in view.values())
        first = next((v[1] for v in view.values() if v[0] == "failed"), None)
        level = "executed" if view["parity"][0] == "passed" else "structural" if view["check"][0] == "passed" else "none"
        if r.get("status") != ("passed" if all_passed else "failed"):
            out.append(f"status: {r.get('status')!r} contradicts the stages")
        if r.get("failure") != first:
            out.append(f"failure: {r.get('failure')!r} contradicts the stages")
        if r.get("level") != level:
            out.append(f"level: {r.get('level')!r} contradicts the stages")
    check_cases(r, view, out)
    check_model_state(r, view, out)
    check_artifacts(r, view, out)
    op = r.get("opset")
    if not isinstance(op, dict) or set(op) != {"requested", "model"}:
        out.append("opset: must be {requested, model}")
    else:
        opts = ex.get("options", {}) if isinstance(ex, dict) and isinstance(ex.get("options"), dict) else {}
        if not is_int(op["requested"]) or not is_int(opts.get("opset_version")) or op["requested"] != opts["opset_version"]:
            out.append("opset.requested: not the options' integer opset_version")
        if view and view["check"][0] == "passed":
            if not isinstance(op["model"], dict) or not op["model"] or not all(is_int(v) for v in op["model"].values()):
                out.append("opset.model: a checked record states the model's opset")
        elif view and op["model"] is not None:
            out.append("opset.model: must be null until check passed")
    tol = r.get("tolerances")
    if not isinstance(tol, dict) or set(tol) != {"rtol", "atol"} or \
            not all(is_num(v) and math.isfinite(v) and v >= 0 for v in tol.values()):
        out.append("tolerances: must be exactly {rtol, atol}, finite and >= 0")
    if isinstance(r.get("profile"), str) and r["profile"] in TESTED:
        expected = tested_settings(r["profile"])
    else:
        expected = rebuilt_settings(r, out)
    if expected is not None:
        try:
            if canonical(record_settings(r)) != canonical(expected):
                out.append("settings: the canonical text differs from the profile's")
        except (TypeError, ValueError) as e:
            out.append(f"settings: {e}")
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        document = load_strict(argv[1])
    except (OSError, ValueError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 1
    if isinstance(document, dict) and "profiles" in document:
        if set(document) != {"format", "status", "profiles"} or document["format"] != FORMAT or \
                not isinstance(document["profiles"], list):
            print(f"{argv[1]}: malformed report", file=sys.stderr)
            return 1
        records = document["profiles"]
        want = "passed" if records and all(isinstance(r, dict) and r.get("status") == "passed" for r in records) \
            else "failed"
        if document["status"] != want:
            print(f"{argv[1]}: report status contradicts its profiles", file=sys.stderr)
            return 1
    else:
        records = [document]
    ok = bool(records)
    for i, r in enumerate(records):
        for p in record_problems(r):
            label = r.get("profile", f"record {i}") if isinstance(r, dict) else f"record {i}"
            print(f"{label}: {p}", file=sys.stderr)
            ok = False
    if ok:
        print(f"{argv[1]}: valid ({len(records)} record(s))")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
