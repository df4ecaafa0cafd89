"""The tensor channel between the core and the worker (worker/TENSORS.md, "Tensor frames"): a module whose
outputs are far over what the old base64-in-JSON answer could carry (64 MiB per answer line, so about 16 MiB
of float32 outputs with their float64 oracle) runs end to end; and the worker refuses a request whose frames
break the wire's rules, answering ok:false. The frame reader's own rules are tests/unit/tensor_frames_test.cc;
a run at the full documented limits: test_module_at_the_limits.py."""
import json
import struct

from conftest import run_cli
from module_support import WORKER_MODELS, write_profiles
from support import records_by_profile
import torch
from worker_support import Worker


def test_image_outputs_far_over_the_old_answer_cap_reach_executed(tmp_path):
    # Match cases of batch 2, 1 and 3: 6 images of [128, 128, 128] float32 outputs = 48 MiB, plus their
    # float64 oracle (96 MiB): 192 MiB of base64 on the old wire, three times its 64 MiB answer cap.
    profile = {"name": "widens", "exporter": "torchscript", "module": f"{WORKER_MODELS}:widens",
               "inputs": [{"name": "image", "shape": ["batch", 1, 128, 128], "dtype": "float32"}],
               "dims": {"batch": [2, 1, 3]}}
    path = write_profiles(tmp_path / "p.json", [profile])
    done = run_cli("run", "--profile-file", path, "--output", tmp_path / "report.json")
    assert done.returncode == 0, done.stderr
    record = records_by_profile(json.loads((tmp_path / "report.json").read_text()))["widens"]
    assert (record["status"], record["level"]) == ("passed", "executed"), record["stages"]["export"]
    outputs = [o for c in record["input_cases"] if c["expect"] == "match" for o in c["outputs"]]
    values = sum(torch.Size(o["shape"]).numel() for o in outputs)
    assert values * 4 >= 3 * (16 << 20), "the float32 outputs are three times the old bound"
    largest = max(outputs, key=lambda o: torch.Size(o["shape"]).numel())
    stored = tmp_path / "report-artifacts" / "widens" / largest["oracle_file"]
    assert stored.stat().st_size > 40 << 20, "the largest float64 oracle output is stored whole"


def test_a_request_whose_frames_break_the_rules_is_refused_and_the_worker_serves_on():
    worker = Worker()
    try:
        line = b'{"op": "ping", "frames": 1}\n'
        bad_dtype = struct.pack("<4sBBHQ", b"NNXF", 4, 0, 0, 0)  # UINT16, a scalar of 0 bytes: the header alone
        worker.proc.stdin.write(line + bad_dtype)
        worker.proc.stdin.flush()
        refused = json.loads(worker.read_line(60))
        assert refused["ok"] is False and "unknown dtype code 4" in refused["error"], refused
        wrong_size = struct.pack("<4sBBHQ", b"NNXF", 11, 1, 0, 12) + struct.pack("<q", 3)
        worker.proc.stdin.write(line + wrong_size)
        worker.proc.stdin.flush()
        refused = json.loads(worker.read_line(60))
        assert refused["ok"] is False and "12 bytes for 3 float64 values" in refused["error"], refused
        assert worker.request({"op": "ping"}) == {"ok": True}
    finally:
        assert worker.close() == 0
