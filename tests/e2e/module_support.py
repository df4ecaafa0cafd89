"""Shared helpers for the module-profile tests: the zoo's profile file made absolute, one-profile files and
their run, a stored tensor rewritten with its record's hash kept consistent."""
import json
from pathlib import Path

from conftest import REPO, run_cli
from support import rehash, write_json

ZOO_PROFILES = REPO / "tests" / "models" / "profiles.json"
WORKER_MODELS = REPO / "tests" / "models" / "worker_models.py"


def absolute_module(profile: dict) -> dict:
    """The zoo's profile with its FILE.py factory made absolute (relative to the zoo's profile file's folder, as
    the core reads it: tests write it into other files and run from any folder)."""
    out = dict(profile)
    target, _, factory = out["module"].rpartition(":")
    if target.endswith(".py") and not Path(target).is_absolute():
        out["module"] = f"{ZOO_PROFILES.parent / target}:{factory}"
    return out


def zoo_profiles() -> list:
    return [absolute_module(p) for p in json.loads(ZOO_PROFILES.read_text())]


def conv_bn_profile(name="conv-bn", exporter="torchscript", **extra) -> dict:
    profile = {"name": name, "exporter": exporter, "module": f"{WORKER_MODELS}:conv_bn",
               "inputs": [{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32"}],
               "dims": {"batch": [2, 1, 3]}}
    profile.update(extra)
    return profile


def write_profiles(path: Path, profiles: list) -> Path:
    path.write_text(json.dumps(profiles))
    return path


def run_one_profile(folder: Path, profile: dict) -> dict:
    """Runs `profile` alone (folder/p.json, report folder/out/r.json, quiet), which must pass; its record."""
    done = run_cli("run", "--profile-file", write_profiles(folder / "p.json", [profile]), "--output",
                   folder / "out" / "r.json", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((folder / "out" / "r.json").read_text())["profiles"][0]


def rewrite_stored_tensor(report_path: Path, root: Path, profile: str, relative: str, change) -> None:
    """Changes the values of one stored tensor of `profile`'s record (`change(values)` edits the array in
    place) and records its new bytes and hash, as a record made from such a file would hold them, so that
    `execute` verifies and reads it."""
    import onnx
    from onnx import numpy_helper

    report = json.loads(report_path.read_text())
    record = next(r for r in report["profiles"] if r["profile"] == profile)
    path = root / record["artifacts"]["directory"] / relative
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    values = numpy_helper.to_array(tensor).copy()
    change(values)
    path.write_bytes(numpy_helper.from_array(values, tensor.name).SerializeToString())
    rehash(record, root, relative)
    write_json(report_path, report)
