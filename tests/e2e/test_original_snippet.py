"""One snippet written for the published original's API (thekaveh-nnx 0.4.1, doc/record-format.md §9), run
under both this build's package (<build>/python/nnx) and the original itself, installed as a black box in
build/original-venv (scripts/install_original.sh; the bootstrap runs it, and so does this test when the
venv is missing); what both return is compared. Nothing here skips."""
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import BUILD, ORIGINAL_VENV, require_runtime

TORCHSCRIPT, DYNAMO = "feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo"

# Written for the original's API; prints what it saw as JSON (keys sorted). Only facts both must share are
# printed (no versions, times or paths).
SNIPPET = r'''
import copy, hashlib, json, sys
from pathlib import Path
from nnx.export_conformance import *

directory = Path(sys.argv[1])
out = {}
out["vocabulary"] = [FORMAT, list(STAGES), list(LEVELS), list(FAILURES), dict(EXIT_CODES), MODEL, list(PROFILES)]
out["value_error"] = issubclass(ConformanceError, ValueError)

report = run_profiles(directory / "runs", source_revision="feedc0de")
out["report"] = [sorted(report), report["format"], report["status"], [r["profile"] for r in report["profiles"]]]
out["records"] = []
for rec in report["profiles"]:
    out["records"].append({
        "keys": sorted(rec),
        "same": {k: rec[k] for k in ["format", "profile", "status", "failure", "level", "config", "exporter",
                                     "opset", "dtype", "tolerances", "model_state"]},
        "source": [rec["source"]["revision"], rec["source"]["origin"]],
        "cases": [[c["name"], c["shape"], c["seed"], c["expect"], c["outcome"], c["passed"]]
                  for c in rec["input_cases"]],
        "files": [[f["path"], f["role"], f["bytes"], f["sha256"]] for f in rec["artifacts"]["files"]],
        "stages": {s: [rec["stages"][s]["status"], rec["stages"][s]["failure"]] for s in rec["stages"]},
        "check": rec["stages"]["check"]["detail"],
    })
    validate_record(rec)
    out["records"][-1]["verify"] = verify_artifacts(rec, directory / "runs")
    again = execute(rec, directory / "runs")
    out["records"][-1]["execute"] = [again["status"], again["level"], again["artifacts"] == rec["artifacts"]]
out["exit"] = [exit_code(report), exit_code({"profiles": report["profiles"]}), exit_code({"profiles": []})]
failed = copy.deepcopy(report["profiles"][1])
failed["status"], failed["failure"] = "failed", "mismatch"
out["exit_failed"] = [exit_code({"profiles": [report["profiles"][0], failed]}), exit_code({"profiles": [failed]})]
lines = summary_lines({"profiles": report["profiles"] + [failed]})
out["lines"] = [[l.split("; ")[0], l.split("; ")[1], l.split("; ")[-1]] for l in lines]
save_report(report, directory / "r.json")
text = (directory / "r.json").read_text()
out["saved"] = [text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n", json.loads(text) == report]
bad = copy.deepcopy(report["profiles"][0]); bad["level"] = "none"
try:
    validate_record(bad); out["refused"] = None
except ConformanceError as e:
    out["refused"] = isinstance(e, ValueError)

p = Profile("tuple-profile", exporter="torchscript", batches=(1, 2), model={**MODEL, "hidden_dims": (8,)})
out["profile"] = [type(p.batches).__name__, list(p.batches), list(p.model["hidden_dims"])]
rec = run_profile(p, directory / "custom", source_revision="feedc0de")
out["custom"] = [rec["status"], rec["level"], rec["config"], [c["name"] for c in rec["input_cases"]],
                 [[f["path"], f["sha256"]] for f in rec["artifacts"]["files"]]]
(directory / "custom" / "tuple-profile" / "extra.bin").write_bytes(b"x")
try:
    verify_artifacts(rec, directory / "custom"); out["extra"] = None
except ConformanceError as e:
    out["extra"] = "extra.bin" in str(e)

model = build_model()
out["modules"] = [[n, type(m).__name__] for n, m in model.net.named_modules()]
digest = hashlib.sha256()
for name, param in model.net.named_parameters():
    digest.update(f"{name}|float32|{json.dumps(list(param.shape))}|".encode())
    digest.update(param.detach().numpy().astype("<f4").tobytes())
out["weights_sha256"] = digest.hexdigest()
other = build_model({**MODEL, "hidden_dims": (3, 5), "activation": "tanh"})
out["other"] = [[n, list(q.shape), q.detach().numpy().tobytes().hex()] for n, q in other.net.named_parameters()]
print(json.dumps(out, sort_keys=True))
'''


def run_snippet(python, directory: Path, env: dict) -> dict:
    directory.mkdir(parents=True)
    done = subprocess.run([str(python), "-c", SNIPPET, str(directory)], capture_output=True, text=True, env=env,
                          timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_same_snippet_gives_the_same_answers_under_the_original_and_here(original_python, tmp_path):
    require_runtime()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    theirs = run_snippet(original_python, tmp_path / "original", base)
    origin = subprocess.run([str(original_python), "-c", "import nnx, importlib.metadata as m; "
                             "print(m.version('thekaveh-nnx'), nnx.__file__)"], capture_output=True, text=True,
                            env=base, timeout=300)
    assert origin.stdout.startswith("0.4.1 " + str(ORIGINAL_VENV)), origin.stdout + origin.stderr
    ours = run_snippet(sys.executable, tmp_path / "ours", {**base, "PYTHONPATH": str(BUILD / "python")})
    assert theirs["report"][3] == [TORCHSCRIPT, DYNAMO] and theirs["exit"] == [0, 0, 1]
    for key in theirs:
        assert ours[key] == theirs[key], key
    assert ours == theirs
