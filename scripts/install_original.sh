#!/usr/bin/env bash
# Installs the published original, thekaveh-nnx 0.4.1 from PyPI, as a black box in its own virtualenv
# build/original-venv, so that tests/e2e/test_original_snippet.py can run the same code under the original and
# under this package and compare what both return. Idempotent: a venv that already imports it is kept.
#
#   build/original-venv   python3 -m venv (the interpreter .venv was made with: same minor version), a .pth
#                         file that adds .venv's site-packages (torch, onnx, numpy, ... are shared, not
#                         installed twice), and thekaveh-nnx==0.4.1 with what it needs that .venv lacks:
#                         pandas, scikit-learn, prettytable, onnxruntime==1.30.0 — exactly
#                         tests/original.lock (`make lock` makes it from tests/original.in, constrained by
#                         requirements.lock), every wheel pinned with its sha256
#
# Wheels come from $NNX_CACHE/wheels (default ~/.cache/nnx-conformance/wheels; the bootstrap's cache), each
# checked against tests/original.lock by scripts/fetch_locked.py first (missing or refused ones are
# downloaded), then installed with --require-hashes --no-deps --no-index --find-links. .venv itself is never
# changed. Run scripts/bootstrap.sh first (it calls this script).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
WHEELS="$CACHE/wheels"
VENV="$ROOT/build/original-venv"
PROJECT_PY="$ROOT/.venv/bin/python"
LOCK="$ROOT/tests/original.lock"
STAMP="$VENV/.nnx-original-lock"

log() { printf 'install_original: %s\n' "$*" >&2; }

[[ -x "$PROJECT_PY" ]] || { log "no .venv in $ROOT: run scripts/bootstrap.sh first"; exit 1; }
SHARED="$("$PROJECT_PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
WANT_VERSION="$("$PROJECT_PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# The venv is ready when it was installed from this lock and the original imports there (its API module and
# the shared torch) with .venv shared.
ready() {
  [[ -x "$VENV/bin/python" ]] && cmp -s "$STAMP" "$LOCK" || return 1
  "$VENV/bin/python" - "$SHARED" <<'EOF' >/dev/null 2>&1
import importlib.metadata as metadata
import sys

assert sys.argv[1] in sys.path
assert metadata.version("thekaveh-nnx") == "0.4.1"
assert metadata.version("onnxruntime") == "1.30.0"
import nnx.export_conformance, onnxruntime, torch  # noqa: E401,F401
EOF
}

if ready; then
  exit 0
fi

if [[ -x "$VENV/bin/python" ]] && \
   [[ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$WANT_VERSION" ]]; then
  log "removing $VENV (another Python than .venv's $WANT_VERSION)"
  rm -rf "$VENV"
fi
if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating $VENV"
  mkdir -p "$ROOT/build"
  python3 -m venv "$VENV"
fi
HAVE_VERSION="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [[ "$HAVE_VERSION" != "$WANT_VERSION" ]]; then
  log "python3 is $HAVE_VERSION but .venv has $WANT_VERSION: .venv's packages cannot be shared"
  rm -rf "$VENV"
  exit 1
fi
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$SHARED" > "$SITE/shared-deps.pth"

rm -f "$STAMP"
python3 "$ROOT/scripts/fetch_locked.py" wheels "$LOCK" --cache "$CACHE" --python "$VENV/bin/python"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps --no-index \
  --find-links "$WHEELS" -r "$LOCK"
cp "$LOCK" "$STAMP"
ready || { log "thekaveh-nnx 0.4.1 does not import in $VENV"; exit 1; }
log "ready: thekaveh-nnx 0.4.1 in $VENV (sharing .venv's packages)"
