"""What the slower lane's tests share (`make slow-lane`, scripts/slow_lane.sh; doc/building-and-testing.md, "The
slower lane"): the end-to-end tests' own fixtures and helpers, not a copy of them. tests/e2e/conftest.py is loaded
from its path and everything it defines is this module's too (the build's paths, run_cli, require_runtime, the
both_profiles fixture), and tests/e2e goes on the import path, so that its helper modules (support.py,
module_support.py, ...) import here as they do there (their `from conftest import ...` finds these names).
`make test` runs pytest on tests/e2e alone: nothing under tests/slow/ runs in it."""
import importlib.util
import sys
from pathlib import Path

E2E = Path(__file__).resolve().parents[1] / "e2e"
if str(E2E) not in sys.path:
    sys.path.append(str(E2E))

_spec = importlib.util.spec_from_file_location("e2e_conftest", E2E / "conftest.py")
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)
globals().update({name: value for name, value in vars(_e2e).items() if not name.startswith("_")})
