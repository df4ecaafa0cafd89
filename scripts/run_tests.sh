#!/usr/bin/env bash
# Runs every test: the GoogleTest suite through ctest, the fuzzers (scripts/run_fuzzers.sh), then the
# brief's CI evidence lane
# (scripts/ci_evidence_lane.sh: the wheel, the core-only environment and its exit 10, both profiles into
# conformance/, and the one pytest run — real ONNX Runtime, real PyTorch exporters — with its JUnit report
# in conformance/pytest.xml and zero skips). ctest and pytest both print their summaries; the script fails
# when either fails, when pytest collects nothing (its exit code 5 is a failure here, never a pass) or
# when any step of the lane fails.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p conformance

status=0
echo "== ctest"
ctest --test-dir build --output-on-failure -j 2 || status=1

echo "== fuzzers (libFuzzer under ASan and UBSan, one per core at a time within 60 s of wall time (NNX_FUZZ_BUDGET), and their execution bounds)"
NNX_FUZZ_BUILD_DIR="$ROOT/build/fuzz" scripts/run_fuzzers.sh || status=1

echo "== evidence lane (pytest included)"
NNX_BUILD_DIR="$ROOT/build" scripts/ci_evidence_lane.sh || status=1
exit $status
