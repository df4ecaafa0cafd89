#!/usr/bin/env python3
"""BASELINE for benchmarks only — not product code.

A plain-Python validator of record-format §6, as a user would write it next to their export script:
json (strict: duplicate keys and NaN/Infinity refused), re and math only. It applies the same rules as
`nnx-conformance validate` (every problem listed) so the two can be timed on the same report.

  baseline_validate.py FILE        FILE: one record or a report {format, status, profiles}
Exit 0 when every record is valid, 1 otherwise (problems on stderr). The rules it shares and the checks of
a record's parts are bench/baseline_rules.py and bench/baseline_checks.py, beside it.
"""
import json
import math
import sys

# Beside this script (sys.path[0]): the shared rules and the checks of a record's parts.
from baseline_checks import check_artifacts, check_cases, check_model_state, check_stages
from baseline_rules import (FORMAT, RECORD_KEYS, SESSION, SHA, TESTED, canonical, is_int, is_num, load_strict,
                            rebuilt_settings, record_settings, tested_settings)


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
