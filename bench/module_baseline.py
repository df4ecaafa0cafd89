"""The baselines of bench/module_bench.py, each run as its own process (as a user would run them):
  export FILE.json NAME OUT   what a user's own script pays for the same evidence: import torch, build the
                              module from its factory, call the exporter with the same dynamic axes, and
                              compute PyTorch's reference (eval, no_grad) and a float64 copy's on the cases;
  recheck FOLDER              the Python re-check a user would write: onnxruntime and numpy on the stored
                              tensors (test_data_set_*), np.allclose per output;
  session FOLDER [memory]     only an onnxruntime session of FOLDER/model.onnx: its memory footprint, and
                              the seconds its creation took in the process (printed); with `memory`, the
                              session is made from the files' bytes read first (the model's bytes, its
                              external data through add_external_initializers_from_files_in_memory), as a
                              loader that runs exactly the bytes it hashed must make it;
  polygraphy FOLDER OUT       (in Polygraphy's own virtualenv) the stored tensors as Polygraphy's JSON:
                              OUT/inputs.json (--load-inputs) and OUT/outputs.json (--load-outputs)."""
import copy
import glob
import importlib.util
import json
import os
import sys


def export(profile_file, name, out):
    import torch
    profile = next(p for p in json.load(open(profile_file)) if p["name"] == name)
    path, factory = profile["module"].rsplit(":", 1)
    spec = importlib.util.spec_from_file_location("user_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = getattr(module, factory)().eval()
    shape = [profile["dims"]["batch"][0] if s == "batch" else s for s in profile["inputs"][0]["shape"]]
    example = torch.randn(*shape)
    names = [i["name"] for i in profile["inputs"]]
    if profile["exporter"] == "dynamo":
        batch = torch.export.Dim("batch")
        torch.onnx.export(model, (example,), out, dynamo=True, input_names=names,
                          dynamic_shapes=({0: batch},), opset_version=18)
    else:
        torch.onnx.export(model, (example,), out, dynamo=False, input_names=names,
                          dynamic_axes={names[0]: {0: "batch"}}, opset_version=18)
    oracle = copy.deepcopy(model).double()
    with torch.no_grad():
        for b in profile["dims"]["batch"]:
            x = torch.randn(b, *shape[1:])
            model(x)
            oracle(x.double())


def recheck(folder):
    import numpy as np
    import onnx
    import onnx.numpy_helper
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(folder, "model.onnx"), options, providers=["CPUExecutionProvider"])
    outputs = [o.name for o in session.get_outputs()]
    for case in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
        load = lambda f: onnx.numpy_helper.to_array(onnx.load_tensor(f))  # noqa: E731
        feeds = {i.name: load(f) for i, f in zip(session.get_inputs(), sorted(glob.glob(f"{case}/input_*.pb")))}
        got = session.run(outputs, feeds)
        for value, f in zip(got, sorted(glob.glob(f"{case}/output_*.pb"))):
            assert np.allclose(value, load(f), rtol=1e-4, atol=1e-5), case


def session(folder, source="path"):
    import time
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    model = os.path.join(folder, "model.onnx")
    if source == "memory":  # the bytes in memory before the clock starts, as execute has them after hashing
        model = open(model, "rb").read()
        data = sorted(f for f in os.listdir(folder)
                      if f.startswith("model.onnx.") and os.path.isfile(os.path.join(folder, f)))
        buffers = [np.fromfile(os.path.join(folder, f), dtype=np.uint8) for f in data]
        if data:
            options.add_external_initializers_from_files_in_memory(data, buffers, [b.nbytes for b in buffers])
    started = time.perf_counter()
    ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    print(time.perf_counter() - started)


def polygraphy(folder, out):
    import onnx
    import onnx.numpy_helper
    from polygraphy.comparator import IterationResult, RunResults
    from polygraphy.json import save_json
    load = lambda f: onnx.numpy_helper.to_array(onnx.load_tensor(f))  # noqa: E731
    model = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    inputs = [i.name for i in model.graph.input]
    outputs = [o.name for o in model.graph.output]
    feeds, results = [], []
    for case in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
        feeds.append(dict(zip(inputs, map(load, sorted(glob.glob(f"{case}/input_*.pb"))))))
        results.append(IterationResult(dict(zip(outputs, map(load, sorted(glob.glob(f"{case}/output_*.pb"))))),
                                       runner_name="pytorch"))
    os.makedirs(out, exist_ok=True)
    save_json(feeds, os.path.join(out, "inputs.json"))
    run_results = RunResults()
    run_results.append(("pytorch", results))
    run_results.save(os.path.join(out, "outputs.json"))


if __name__ == "__main__":
    {"export": export, "recheck": recheck, "session": session, "polygraphy": polygraphy}[sys.argv[1]](*sys.argv[2:])
