#!/usr/bin/env bash
# The brief's CI evidence lane (export-conformance.txt §5), run by `make test` (scripts/run_tests.sh) and so
# by .ci/run. Every step fails the lane; it needs `make build` first (bootstrap, build/ with the staged
# package build/python/nnx and build/nnx-conformance).
#
#   wheel  the portable wheel, as `make wheel` makes it (scripts/wheel.sh: pip wheel without build isolation,
#          the CMake folder build-wheel/ beside build/ kept, then auditwheel repair into dist/ and its policy
#          printed). The wheel bakes in no path of this checkout; pytest's tests/e2e/test_wheel_install.py
#          installs it into a clean virtualenv outside the checkout and runs its commands from PATH.
#   (a)    a core-only virtualenv (build/lane/core-venv) gets the wheel WITHOUT extras: nnx and
#          nnx.export_conformance import there (from that virtualenv); torch, onnx, onnxruntime and onnxscript
#          do not; no ONNX Runtime library is reachable (nothing baked in, no onnxruntime wheel,
#          NNX_ONNXRUNTIME_LIBRARY and LD_LIBRARY_PATH unset, the system loader finds none). The extras name
#          exactly what each tested profile needs (the core's list; read from the wheel's metadata).
#   (b)    there `scripts/check_export_conformance.py --output missing.json` must exit exactly 10.
#   (c)    the full environment (.venv: torch, onnx, onnxscript; the bootstrap's ONNX Runtime; the package this
#          build staged) runs both profiles into conformance/ through the script; a non-zero exit fails.
#   (d)    pytest (the project's one pytest run, NNX_TEST_JOBS processes: default one per core, at most 4) with
#          NNX_REQUIRE_ONNX_RUNTIME=1 writes conformance/pytest.xml;
#          a failure, no test (exit 5), or any skip recorded in the JUnit report fails the lane.
#   (e)    conformance/ keeps the report, every artifact (verified byte for byte by the C++ command line),
#          the report's HTML, Markdown and JUnit renderings (conformance.html, .md, conformance-profiles.xml)
#          and the JUnit report of the tests.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="${NNX_BUILD_DIR:-$ROOT/build}"
VENV_PY="$ROOT/.venv/bin/python"
LANE="$BUILD/lane"
OUT="$ROOT/conformance"
passed=0

step() { printf '== lane %s\n' "$*"; }
ok() { passed=$((passed + 1)); printf 'lane: ok: %s\n' "$*"; }
fail() { printf 'lane: FAILED: %s\n' "$*" >&2; printf 'evidence: %d passed, 1 failed\n' "$passed"; exit 1; }
seconds() { date +%s; }

[[ -x "$VENV_PY" ]] || fail ".venv is missing: run make bootstrap"
[[ -d "$BUILD/python/nnx" && -x "$BUILD/nnx-conformance" ]] || fail "$BUILD is not built: run make build"
mkdir -p "$LANE" "$OUT"

# --- the wheel ------------------------------------------------------------------------------------------------
step "wheel: scripts/wheel.sh (pip wheel, build folder $BUILD-wheel; auditwheel repair into dist/)"
t0=$(seconds)
# Nothing else runs during this step: the wheel's compile takes every core (make wheel's default is one job).
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" NNX_BUILD_DIR="$BUILD" "$ROOT/scripts/wheel.sh" |
  grep -v '^/' || fail "the wheel did not build or repair"
wheel=("$ROOT"/dist/nnx_conformance-*manylinux*.whl)
[[ -f "${wheel[0]}" ]] || fail "no repaired wheel in dist/"
ok "built and repaired $(basename "${wheel[0]}") ($(stat -c %s "${wheel[0]}") bytes) in $(($(seconds) - t0)) s"

# --- (a) the core-only environment ----------------------------------------------------------------------------
step "(a) core-only environment: the wheel without extras"
CORE="$LANE/core-venv"
BASE_PY="$("$VENV_PY" -c 'import sys; print(sys._base_executable)')"
rm -rf "$CORE"
"$BASE_PY" -m venv "$CORE" || fail "cannot create $CORE"
"$CORE/bin/python" -m pip install -q --no-index --no-deps --disable-pip-version-check "${wheel[0]}" \
  || fail "the wheel does not install into a core-only virtualenv"
# The environment of a core-only machine: nothing points at a runtime, a worker or this checkout's build.
core_env=(env -u LD_LIBRARY_PATH -u LD_PRELOAD -u NNX_ONNXRUNTIME_LIBRARY -u NNX_PYTHON -u NNX_WORKER_SCRIPT
          -u PYTHONPATH -u PYTHONHOME NNX_BUILD_DIR="$LANE/no-build-here")
(cd "$LANE" && "${core_env[@]}" "$CORE/bin/python" - "$CORE" <<'EOF') || fail "the core-only environment is not what the brief asks"
import ctypes
import importlib.metadata
import importlib.util
import os
import re
import sys

core = os.path.realpath(sys.argv[1])
import nnx
import nnx.export_conformance as ec

assert os.path.realpath(nnx.__file__).startswith(core + os.sep), f"nnx comes from {nnx.__file__}, not {core}"
print(f"nnx {nnx.__version__} and nnx.export_conformance import from {os.path.dirname(nnx.__file__)}")
for name in ("torch", "onnx", "onnxruntime", "onnxscript"):
    assert importlib.util.find_spec(name) is None, f"{name} is findable in the core-only environment"
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise AssertionError(f"{name} imports in the core-only environment")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "onnx", "onnxruntime", "onnxscript"))
assert not heavy, f"importing nnx loaded {heavy}"
print("torch, onnx, onnxruntime and onnxscript are absent")
assert ec._core.bundled_onnxruntime() == "", "the wheel bakes in an ONNX Runtime path"
assert ec._core.checkout_dir() == "", "the wheel bakes in a checkout"
assert ec._onnxruntime_library(None) is None, "an onnxruntime wheel is reachable"
try:
    ctypes.CDLL("libonnxruntime.so.1")
except OSError:
    pass
else:
    raise AssertionError("the system loader finds libonnxruntime.so.1")
print("no ONNX Runtime library is reachable")
# The extras name what each tested profile needs (the core's list of requirements).
extras = {}
for requirement in importlib.metadata.requires("nnx-conformance") or []:
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)[^;]*;\s*extra\s*==\s*\"([^\"]+)\"", requirement)
    if match:
        extras.setdefault(match.group(2), set()).add(match.group(1).lower())
assert not [r for r in (importlib.metadata.requires("nnx-conformance") or []) if "extra" not in r], "nnx-conformance needs more than its core"
for extra, profile in (("onnx-runtime", "feedfwd-fp32-torchscript"), ("onnx-dynamo", "feedfwd-fp32-dynamo")):
    needed = set(ec.PROFILES[profile].requires)
    assert needed <= extras.get(extra, set()), f"nnx-conformance[{extra}] lacks {sorted(needed - extras.get(extra, set()))}"
    print(f"nnx-conformance[{extra}] = {sorted(extras[extra])} covers {profile}: {sorted(needed)}")
EOF
ok "(a) nnx imports without torch, onnx, onnxruntime, onnxscript or a runtime library"

# --- (b) exit 10 there ----------------------------------------------------------------------------------------
step "(b) core-only environment: check_export_conformance.py --output missing.json must exit 10"
rm -rf "$LANE/core-only"
mkdir -p "$LANE/core-only"
(cd "$LANE/core-only" && "${core_env[@]}" "$CORE/bin/python" "$ROOT/scripts/check_export_conformance.py" \
  --output missing.json)
rc=$?
[[ $rc -eq 10 ]] || fail "(b) the script exited $rc in the core-only environment, not 10"
"$CORE/bin/python" - "$LANE/core-only/missing.json" <<'EOF' || fail "(b) missing.json is not two missing-dependency records"
import json, sys
report = json.load(open(sys.argv[1]))
assert [r["failure"] for r in report["profiles"]] == ["missing-dependency"] * 2, report["status"]
assert all(r["source"]["origin"] == "unknown" for r in report["profiles"]), "an installed copy claims a checkout"
EOF
ok "(b) exit 10, both records missing-dependency ($LANE/core-only/missing.json)"

# --- (c) both profiles into conformance/ ----------------------------------------------------------------------
step "(c) full environment: both profiles into conformance/"
t0=$(seconds)
NNX_BUILD_DIR="$BUILD" "$VENV_PY" scripts/check_export_conformance.py --output "$OUT/conformance.json" --force
rc=$?
[[ $rc -eq 0 ]] || fail "(c) the script exited $rc for the two tested profiles"
ok "(c) both profiles passed in $(($(seconds) - t0)) s"
# The report's human forms next to it, for people and CI (doc/cli.md, "Looking at the evidence").
"$BUILD/nnx-conformance" report "$OUT/conformance.json" --html "$OUT/conformance.html" \
  --markdown "$OUT/conformance.md" --junit "$OUT/conformance-profiles.xml" >/dev/null \
  || fail "(c) the report could not be rendered"
ok "(c) rendered conformance.html, conformance.md and conformance-profiles.xml"

# --- (d) pytest, zero skips -----------------------------------------------------------------------------------
# Test processes at once (pytest-xdist): one per core, at most 4 (each holds torch, ~1 GiB), NNX_TEST_JOBS
# overrides (checked as scripts/run_fuzzers.sh checks NNX_FUZZ_JOBS); --dist loadfile keeps a file's tests
# (and its module-scoped runs) in one process.
cores="$(nproc)"
jobs="${NNX_TEST_JOBS:-$((cores < 4 ? cores : 4))}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || fail "(d) NNX_TEST_JOBS=$jobs is not a positive integer (unset it for one process per core, at most 4)"
step "(d) pytest in $jobs processes with NNX_REQUIRE_ONNX_RUNTIME=1 → conformance/pytest.xml"
rm -f "$OUT/pytest.xml"
NNX_BUILD_DIR="$BUILD" NNX_REQUIRE_ONNX_RUNTIME=1 "$VENV_PY" -m pytest tests/e2e -q -rs -n "$jobs" --dist loadfile \
  --junitxml="$OUT/pytest.xml"
rc=$?
if [[ $rc -ne 0 ]]; then
  [[ $rc -eq 5 ]] && fail "(d) pytest collected no tests"
  fail "(d) pytest exited $rc"
fi
"$VENV_PY" "$ROOT/scripts/junit_no_skips.py" "$OUT/pytest.xml" || fail "(d) the JUnit report records a skip (or no test)"
ok "(d) pytest passed with zero skips"

# --- (e) what conformance/ keeps ------------------------------------------------------------------------------
step "(e) conformance/ holds the report, every artifact and the JUnit report"
for kept in conformance.json pytest.xml conformance.html conformance.md conformance-profiles.xml; do
  [[ -f "$OUT/$kept" ]] || fail "(e) $kept is missing from conformance/"
done
"$BUILD/nnx-conformance" verify "$OUT/conformance.json" "$OUT/conformance-artifacts" \
  || fail "(e) the artifacts in conformance/ do not verify"
ok "(e) $(find "$OUT" -type f | wc -l) files in conformance/"

printf 'evidence: %d passed, 0 failed\n' "$passed"
