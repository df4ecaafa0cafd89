"""Shared helpers for the module-profile tests: the zoo's profile file made absolute, one-profile files."""
import json
from pathlib import Path

from conftest import REPO

ZOO_PROFILES = REPO / "tests" / "models" / "profiles.json"
WORKER_MODELS = REPO / "tests" / "models" / "worker_models.py"


def absolute_module(profile: dict) -> dict:
    """The profile with its FILE.py factory made absolute (tests run from any folder)."""
    out = dict(profile)
    target, _, factory = out["module"].rpartition(":")
    if target.endswith(".py") and not Path(target).is_absolute():
        out["module"] = f"{REPO / target}:{factory}"
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
