"""BASELINE for benchmarks only — not product code: bench/baseline_validate.py's checks of a record's parts.

The stages (their order, statuses and failure classes), the input cases and their numbers, the model state
and the artifacts, each appending its problems to `out` (record-format §6).
"""
import math

from baseline_rules import (CASE_KEYS, CLASSES, MAX_UNITS, MAX_VALUES, SHA, STAGES, exact_keys, is_int, is_num,
                            normalize_path)


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
