#!/usr/bin/env bash
# torch's own verification's virtualenv for bench/localise_bench.py's side-by-side baseline (never .venv): the
# locked torch, torchvision, onnx and onnxscript of requirements.lock, and the onnxruntime wheel of the same
# release the core opens, which torch.onnx.verification.verify_onnx_program runs the graph with. Installed
# offline from the bootstrap's wheel cache (scripts/bootstrap.sh: $NNX_CACHE/wheels); a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=build/torch-verify-venv
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import onnxruntime, torch, torchvision" 2>/dev/null; then
  echo "setup_torch_verify: ready in $VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps --no-index \
  --find-links "$CACHE/wheels" -r requirements.lock
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-index \
  --find-links "$CACHE/wheels" onnxruntime==1.30.0 flatbuffers
echo "setup_torch_verify: installed in $VENV"
