#!/usr/bin/env bash
# Polygraphy's own virtualenv for bench/module_bench.py's side-by-side baseline (never .venv): NVIDIA's
# Polygraphy with the same onnxruntime release the core opens. A setup command: it is the only part of the
# benchmarks that downloads, and a second run downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=build/polygraphy-venv
if [ -x "$VENV/bin/polygraphy" ]; then
  echo "setup_polygraphy: ready in $VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet polygraphy==0.53.6 onnxruntime==1.30.0 onnx==1.23.2 numpy==2.4.6 colored==2.3.2
echo "setup_polygraphy: installed in $VENV"
