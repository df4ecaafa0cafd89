#!/usr/bin/env bash
# Runs every test: the GoogleTest suite through ctest, then pytest (real ONNX Runtime, real PyTorch
# exporters). Both print their summaries; the script fails when either fails or when pytest collects
# nothing (its exit code 5 is a failure here, never a pass).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p conformance

status=0
echo "== ctest"
ctest --test-dir build --output-on-failure -j 2 || status=1

echo "== pytest"
NNX_BUILD_DIR="$ROOT/build" NNX_REQUIRE_ONNX_RUNTIME=1 .venv/bin/python -m pytest tests -q -rs \
  --junitxml=conformance/pytest.xml
rc=$?
if [[ $rc -ne 0 ]]; then
  [[ $rc -eq 5 ]] && echo "pytest collected no tests: that is a failure" >&2
  status=1
fi
exit $status
