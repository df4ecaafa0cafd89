"""Measures every profile of tests/models/profiles.json by hand, outside the core: export at the dims' first
values with the profile's exporter, then ONNX Runtime (CPU, one thread) against the torch eval/no_grad forward
at every case the core makes (every value of every dim; every fixed size + 1, which must be refused).

    python bench/zoo_measure.py [NAME ...]     # one JSON line per profile on stdout; each in its own process

Needs torch, torchvision, onnx, onnxscript and onnxruntime in one interpreter (build/original-venv has
onnxruntime and sees .venv's packages). Not a test: the ground truth tests/models/README.md quotes.
"""
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "tests" / "models" / "profiles.json"


def load_factory(module):
    path, name = module.split(":")
    spec = importlib.util.spec_from_file_location("zoo", ROOT / path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def shapes_at(profile, values):
    return [[values[d] if isinstance(d, str) else d for d in i["shape"]] for i in profile["inputs"]]


def cases(profile):
    """(case name, shapes, expect) in the core's order: export, other dim values, each fixed size + 1."""
    dims = profile["dims"]
    first = {name: vals[0] for name, vals in dims.items()}
    result = [("export", shapes_at(profile, first), "match")]
    for name, vals in dims.items():
        for v in vals[1:]:
            result.append((f"{name}-{v}", shapes_at(profile, {**first, name: v}), "match"))
    base = shapes_at(profile, first)
    for j, spec in enumerate(profile["inputs"]):
        for axis, d in enumerate(spec["shape"]):
            if isinstance(d, int):
                wrong = [list(s) for s in base]
                wrong[j][axis] = d + 1
                result.append((f"{spec['name']}-axis{axis}-{d + 1}", wrong, "rejected"))
    return result


def draw(profile, shapes, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    arrays = []
    for spec, shape in zip(profile["inputs"], shapes):
        if spec["dtype"] == "int64":
            low, high = spec["range"]
            arrays.append(rng.integers(low, high, size=shape, dtype=np.int64))
        else:
            arrays.append(rng.standard_normal(shape).astype(np.float32))
    return arrays


def export(model, profile, examples, path):
    import torch

    names = [i["name"] for i in profile["inputs"]]
    outputs = profile.get("outputs")
    opset = profile.get("opset", 18)
    if profile["exporter"] == "dynamo":
        dims = {name: torch.export.Dim(name, min=1) for name in profile["dims"]}
        dynamic = tuple({a: dims[d] for a, d in enumerate(i["shape"]) if isinstance(d, str)}
                        for i in profile["inputs"])
        torch.onnx.export(model, tuple(examples), path, dynamo=True, opset_version=opset, input_names=names,
                          output_names=outputs, dynamic_shapes=dynamic)
    else:
        axes = {i["name"]: {a: d for a, d in enumerate(i["shape"]) if isinstance(d, str)} for i in profile["inputs"]}
        axes.update({o: {0: "batch"} for o in outputs or []})
        torch.onnx.export(model, tuple(examples), path, dynamo=False, opset_version=opset, input_names=names,
                          output_names=outputs, dynamic_axes=axes)


def ort_code(error):
    match = re.search(r"\[ONNXRuntimeError\] : \d+ : (\w+) :", str(error))
    return match.group(1) if match else type(error).__name__


def errors(reference, got):
    import numpy as np

    worst_abs, worst_rel = 0.0, 0.0
    for r, g in zip(reference, got):
        if r.shape != g.shape:
            return f"shape {list(g.shape)} vs torch {list(r.shape)}", None
        d = np.abs(r.astype(np.float64) - g.astype(np.float64))
        worst_abs = max(worst_abs, float(d.max(initial=0.0)))
        big = np.abs(r) > 1e-3
        if big.any():
            worst_rel = max(worst_rel, float((d[big] / np.abs(r[big])).max()))
    return worst_abs, worst_rel


def torch_forward(model, arrays):
    import torch

    with torch.no_grad():
        out = model(*[torch.from_numpy(a) for a in arrays])
    out = out if isinstance(out, (tuple, list)) else (out,)
    return [o.numpy() for o in out]


def run_case(session, model, profile, case):
    name, shapes, expect = case
    arrays = draw(profile, shapes, seed=len(name))
    row = {"case": name, "expect": expect, "shapes": shapes}
    try:
        reference = torch_forward(model, arrays)
        row["torch"] = "ok"
    except Exception as e:  # noqa: BLE001 - the torch refusal itself is a finding
        reference, row["torch"] = None, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    feeds = {i["name"]: a for i, a in zip(profile["inputs"], arrays)}
    try:
        got = session.run(None, feeds)
        row["ort"] = "ran"
    except Exception as e:  # noqa: BLE001
        row["ort"], row["ort_error"] = ort_code(e), str(e).splitlines()[0][:200]
        return row
    if reference is not None:
        row["max_abs"], row["max_rel"] = errors(reference, got)
    return row


def measure(profile):
    import onnxruntime as ort
    import torch

    torch.set_num_threads(1)   # the forward's time without oversubscription on a shared machine
    model = load_factory(profile["module"])().eval()
    export_case = cases(profile)[0]
    examples = [torch.from_numpy(a) for a in draw(profile, export_case[1], seed=0)]
    result = {"name": profile["name"]}
    with torch.no_grad():
        times = []
        for _ in range(5):
            t = time.perf_counter()
            model(*examples)
            times.append(time.perf_counter() - t)
    result["forward_ms"] = round(sorted(times)[2] * 1e3, 2)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        t = time.perf_counter()
        try:
            export(model, profile, examples, path)
        except Exception as e:  # noqa: BLE001
            result.update(export="failed", export_s=round(time.perf_counter() - t, 2),
                          export_error=f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}")
            return result
        result.update(export="ok", export_s=round(time.perf_counter() - t, 2))
        result["declared"] = declared(path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        try:
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001
            result.update(load=ort_code(e), load_error=str(e)[:300])
            return result
        result["cases"] = [run_case(session, model, profile, c) for c in cases(profile)]
    return result


def declared(path):
    import onnx

    model = onnx.load(path)
    dims = lambda v: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]  # noqa: E731
    return {"inputs": {v.name: dims(v) for v in model.graph.input},
            "outputs": {v.name: dims(v) for v in model.graph.output}}


def main(argv):
    profiles = json.loads(PROFILES.read_text())
    if argv[:1] == ["--one"]:
        (profile,) = [p for p in profiles if p["name"] == argv[1]]
        print(json.dumps(measure(profile)))
        return 0
    for profile in profiles:
        if argv and profile["name"] not in argv:
            continue
        done = subprocess.run([sys.executable, __file__, "--one", profile["name"]], capture_output=True,
                              text=True, timeout=900)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        print(lines[-1] if lines else json.dumps({"name": profile["name"], "crashed": done.returncode,
                                                   "stderr": done.stderr[-500:]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
