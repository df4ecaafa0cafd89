#!/usr/bin/env python3
"""BASELINE for benchmarks only — not product code.

The plain Python a user would write instead of nnx-conformance, for the same job on the same profile:
build the network in PyTorch with torch.Generator weights, torch.onnx.export it, onnx.checker it,
hash the files with hashlib, run every case in onnxruntime.InferenceSession (one thread) and compare
with numpy against the PyTorch forward; write the findings as JSON. Two modes:

  baseline_check.py run     PROFILE_JSON OUT_DIR      export + check + run + compare (what `run` does)
  baseline_check.py recheck RECORD_JSON ROOT          hashes + rebuild + run + compare of a saved record
                                                      (what `nnx-conformance execute` does)

PROFILE_JSON holds Profile fields as in tests/tools/nnx_run_profile (name, exporter, batches, model, ...).
Exit 0 when every valid batch matched and the wrong width was refused, else 1.
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn

ACTIVATIONS = {
    "elu": nn.ELU, "selu": nn.SELU, "tanh": nn.Tanh, "relu": nn.ReLU, "softmax": lambda: nn.Softmax(dim=-1),
    "sigmoid": nn.Sigmoid, "softplus": nn.Softplus, "leaky_relu": nn.LeakyReLU,
}
MODEL_DEFAULTS = {"input_dim": 4, "hidden_dims": [8], "output_dim": 2, "activation": "relu", "dropout": 0.0,
                  "weights": {"seed": 0, "std": 0.5}}


class FeedFwdNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        widths = [cfg["input_dim"], *cfg["hidden_dims"], cfg["output_dim"]]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        self.activation = ACTIVATIONS[cfg["activation"]]()
        self.dropout = nn.Dropout(cfg["dropout"])

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.dropout(self.activation(layer(x)))
        return self.layers[-1](x)


def build_model(cfg):
    torch.set_num_threads(1)
    model = FeedFwdNN(cfg)
    g = torch.Generator().manual_seed(cfg["weights"]["seed"])
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.copy_(torch.randn(p.shape, generator=g) * cfg["weights"]["std"])
    return model.eval()


def weights_sha256(model):
    h = hashlib.sha256()
    for name, p in model.named_parameters():
        h.update(f"{name}|float32|{list(p.shape)}|".encode())
        h.update(p.detach().numpy().astype("<f4").tobytes())
    return h.hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cases_of(batches, input_dim):
    cases = [{"name": f"batch-{b}", "shape": [b, input_dim], "seed": 1000 + b, "expect": "match"} for b in batches]
    cases.append({"name": f"width-{input_dim + 1}", "shape": [3, input_dim + 1], "seed": 2000, "expect": "rejected"})
    return cases


def run_cases(model, model_path, cases, rtol, atol):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    results = []
    for case in cases:
        x = torch.randn(case["shape"], generator=torch.Generator().manual_seed(case["seed"]))
        try:
            (got,) = session.run(None, {"features": x.numpy()})
        except Exception as e:  # a wrong width is refused as an invalid argument
            results.append({**case, "outcome": "rejected", "passed": case["expect"] == "rejected",
                            "detail": str(e).splitlines()[0]})
            continue
        if case["expect"] == "rejected":
            results.append({**case, "outcome": "accepted", "passed": False})
            continue
        with torch.no_grad():
            want = model(x).numpy()
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        ok = bool(got.shape == want.shape and np.all(np.isfinite(got)) and
                  np.all(err <= atol + rtol * np.abs(want.astype(np.float64))))
        results.append({**case, "outcome": "match" if ok else "mismatch", "passed": ok,
                        "max_abs_error": float(err.max()) if err.size else 0.0})
    return results


def cmd_run(profile_path, out_dir):
    with open(profile_path) as f:
        profile = json.load(f)
    cfg = {**MODEL_DEFAULTS, **profile.get("model", {})}
    cfg["weights"] = {**MODEL_DEFAULTS["weights"], **cfg.get("weights", {})}
    name = profile["name"]
    dynamo = profile.get("exporter", "torchscript") == "dynamo"
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    model = build_model(cfg)
    example = torch.randn(profile.get("export_batch", 2), cfg["input_dim"], generator=torch.Generator().manual_seed(7))
    path = os.path.join(folder, "model.onnx")
    if dynamo:
        torch.onnx.export(model, (example,), path, dynamo=True, opset_version=17, input_names=["features"],
                          output_names=["logits"], dynamic_shapes=({0: torch.export.Dim("batch")},))
    else:
        torch.onnx.export(model, (example,), path, dynamo=False, opset_version=17, input_names=["features"],
                          output_names=["logits"], dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}})
    onnx.checker.check_model(path, full_check=True)
    files = []
    for root, _, names in os.walk(folder):
        for n in sorted(names):
            p = os.path.join(root, n)
            files.append({"path": os.path.relpath(p, folder), "bytes": os.path.getsize(p), "sha256": sha256_file(p)})
    cases = run_cases(model, path, cases_of(profile.get("batches", [1, 2, 3, 7]), cfg["input_dim"]),
                      profile.get("rtol", 1e-4), profile.get("atol", 1e-5))
    passed = all(c["passed"] for c in cases)
    record = {"profile": name, "status": "passed" if passed else "failed", "config": cfg,
              "weights_sha256": weights_sha256(model), "files": files, "input_cases": cases,
              "versions": {"torch": torch.__version__, "onnx": onnx.__version__, "onnxruntime": ort.__version__}}
    with open(os.path.join(out_dir, name + ".baseline.json"), "w") as f:
        json.dump(record, f, indent=2, sort_keys=True)
    print(f"{name}: {record['status']}; {sum(c['passed'] for c in cases)}/{len(cases)} input cases passed")
    return 0 if passed else 1


def cmd_recheck(record_path, root):
    with open(record_path) as f:
        document = json.load(f)
    records = document["profiles"] if "profiles" in document else [document]
    ok = True
    for record in records:
        folder = os.path.join(root, record["artifacts"]["directory"])
        for entry in record["artifacts"]["files"]:
            p = os.path.join(folder, entry["path"])
            if os.path.getsize(p) != entry["bytes"] or sha256_file(p) != entry["sha256"]:
                print(f"{entry['path']}: hash mismatch")
                ok = False
        if not ok:
            continue
        cfg = record["config"]
        model = build_model(cfg)
        if weights_sha256(model) != cfg["weights_sha256"]:
            print(f"{record['profile']}: rebuilt weights differ")
            ok = False
            continue
        cases = [{k: c[k] for k in ("name", "shape", "seed", "expect")} for c in record["input_cases"]]
        results = run_cases(model, os.path.join(folder, record["artifacts"]["model"]), cases,
                            record["tolerances"]["rtol"], record["tolerances"]["atol"])
        passed = all(c["passed"] for c in results)
        ok = ok and passed
        print(f"{record['profile']}: {'passed' if passed else 'failed'}; "
              f"{sum(c['passed'] for c in results)}/{len(results)} input cases passed")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("run", "recheck"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    code = cmd_run(sys.argv[2], sys.argv[3]) if sys.argv[1] == "run" else cmd_recheck(sys.argv[2], sys.argv[3])
    sys.exit(code)
