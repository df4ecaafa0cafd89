"""torch's side of bench/localise_bench.py, run in torch's own verification virtualenv
(scripts/setup_torch_verify.sh, build/torch-verify-venv; never .venv):

    build/torch-verify-venv/bin/python bench/torch_verify_side.py FACTORY SHAPE

tests/models/zoo.py's FACTORY exported by the dynamo exporter on a random input of SHAPE ("2,3,224,224"; its
seconds said apart), then torch.onnx.verification.verify_onnx_program(program, compare_intermediates=True)
timed, this process's resident set sampled every 20 ms before and during it. Prints one JSON object:
export_seconds, verify_seconds, rss_before_mib, rss_peak_mib, fx_values (the exported program's call_function
nodes), values_compared (the verification infos: every value torch matched by name), outputs."""
import json
import sys
import threading
import time
from pathlib import Path

import torch
from torch.onnx.verification import verify_onnx_program

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "models"))
import zoo  # noqa: E402


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    factory, shape = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
    torch.manual_seed(0)
    model = getattr(zoo, factory)().eval()
    start = time.perf_counter()
    program = torch.onnx.export(model, (torch.randn(*shape),), dynamo=True, verbose=False)
    export_seconds = time.perf_counter() - start
    graph = program.exported_program.module().graph
    fx_values = sum(1 for n in graph.nodes if n.op == "call_function")
    before, peak, stop = rss_mib(), [0.0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mib())
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    infos = verify_onnx_program(program, compare_intermediates=True)
    verify_seconds = time.perf_counter() - start
    stop.set()
    sampler.join()
    outputs = len(program.model.graph.outputs)
    print(json.dumps({"export_seconds": export_seconds, "verify_seconds": verify_seconds, "rss_before_mib": before,
                      "rss_peak_mib": max(peak[0], rss_mib()), "fx_values": fx_values,
                      "values_compared": len(infos) - outputs, "outputs": outputs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
