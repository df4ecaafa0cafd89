#!/usr/bin/env bash
# The slower lane (`make slow-lane`; doc/building-and-testing.md, "The slower lane"): pytest on tests/slow/, which
# `make test` does not collect (its pytest runs tests/e2e alone) and CI does not run (.ci/run calls `make test`).
# Today that is tests/slow/test_real_matrix.py: both tested profiles and two module profiles (ResNet-18, a
# transformer encoder) as one report, run as one matrix over the five optimisation levels × 1 and 2 threads ×
# the CPU and OpenVINO providers × ONNX Runtime 1.24.1 and 1.32.0 (`make runtimes ORT_VERSIONS="1.24.1 1.32.0"`
# fetches them), its cell count and wall time printed. It needs a build (make slow-lane builds first).
#
# pytest runs with NNX_REQUIRE_ONNX_RUNTIME=1 and -s (the tests print their figures), writes
# build/slow-lane/pytest.xml, and the lane fails on a failing test, no test (exit 5) or any skip
# (scripts/junit_no_skips.py, the check the CI lane makes of its own pytest run). The lane prints its wall time.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="${NNX_BUILD_DIR:-$ROOT/build}"
VENV_PY="$ROOT/.venv/bin/python"
OUT="$BUILD/slow-lane"

fail() { printf 'slow lane: FAILED: %s\n' "$*" >&2; exit 1; }

[[ -x "$VENV_PY" ]] || fail ".venv is missing: run make bootstrap"
[[ -d "$BUILD/python/nnx" && -x "$BUILD/nnx-conformance" ]] || fail "$BUILD is not built: run make slow-lane"
mkdir -p "$OUT"
rm -f "$OUT/pytest.xml"
started=$(date +%s)
echo "== slow lane: pytest tests/slow → $OUT/pytest.xml"
NNX_BUILD_DIR="$BUILD" NNX_REQUIRE_ONNX_RUNTIME=1 "$VENV_PY" -m pytest tests/slow -q -s -rs --junitxml="$OUT/pytest.xml"
rc=$?
if [[ $rc -ne 0 ]]; then
  [[ $rc -eq 5 ]] && fail "pytest collected no tests"
  fail "pytest exited $rc"
fi
"$VENV_PY" "$ROOT/scripts/junit_no_skips.py" "$OUT/pytest.xml" || fail "the JUnit report records a skip (or no test)"
printf 'slow lane: passed in %d s\n' "$(($(date +%s) - started))"
