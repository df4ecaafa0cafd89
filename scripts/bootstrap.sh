#!/usr/bin/env bash
# Bootstraps everything the build and the tests need, idempotently.
#
#   Debian packages   cmake, ninja, g++, OpenSSL, nlohmann-json, GoogleTest, Google Benchmark, OpenBLAS, clang,
#                     protobuf (libprotobuf-dev, protobuf-compiler: the model reader compiles .venv's onnx.proto)
#   ONNX Runtime      libonnxruntime.so.1 (1.30.0) from the npm package onnxruntime-node@1.30.0 (only that
#                     file; its install script is never run), C/C++ headers (API 21) from Debian trixie's
#                     libonnxruntime-dev as `scripts/build_requirements.sh headers` extracts them into
#                     $NNX_CACHE/onnxruntime-headers (a private apt configuration: the system's apt sources
#                     are never changed and no trixie package is installed), copied into .deps
#   .venv/            torch 2.13.0, onnx, onnxscript, numpy, pytest, torchvision 0.28.0 (pillow), pybind11,
#                     scikit-build-core
#
# What is installed is requirements.lock (`make lock` makes it from requirements.in): every Python
# distribution with its sha256, the npm package's integrity and the Debian package's version and sha256.
# Downloads are cached in $NNX_CACHE (default ~/.cache/nnx-conformance; Python wheels in its wheels/),
# outside the checkout, so a fresh clone reuses them; scripts/fetch_locked.py checks every cached file
# against the lock before it is used. A second run downloads nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
DEPS="$ROOT/.deps"
mkdir -p "$CACHE" "$DEPS"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------------------------
DEB_PACKAGES=(cmake ninja-build g++ make libssl-dev nlohmann-json3-dev libgtest-dev libgmock-dev
              libbenchmark-dev libopenblas-dev libcli11-dev clang libclang-rt-14-dev python3-venv strace time ccache
              libprotobuf-dev protobuf-compiler
              chromium python3-junitparser)  # the page tests: a real browser, a real JUnit parser
"$ROOT/scripts/build_requirements.sh" debs "${DEB_PACKAGES[@]}"   # the missing ones (one rule for both)

# --- ONNX Runtime shared library (npm package, file only) -------------------------------------
# Every file taken from $CACHE is first checked against requirements.lock by scripts/fetch_locked.py (a
# mismatch is named, downloaded once more, and refused if still wrong). A stamp holds the lock's pins that
# .deps was made from, so a new lock remakes it and a second run takes nothing.
FETCH=(python3 "$ROOT/scripts/fetch_locked.py")
LOCK="$ROOT/requirements.lock"
ORT_DIR="$DEPS/onnxruntime"
ORT_LIB="$ORT_DIR/lib/libonnxruntime.so.1"
ORT_STAMP="$ORT_DIR/.nnx-lock"
ORT_PINS="$(grep -E '^#@ (npm|deb) ' "$LOCK")"
# The headers of Debian trixie's libonnxruntime-dev, extracted once into the cache by the source build's own
# command (every run: a pip build from a clone, tests/e2e/test_pip_install_from_clone.py, finds them there).
ORT_HEADERS="$("$ROOT/scripts/build_requirements.sh" headers)"
if [[ ! -f "$ORT_LIB" || ! -f "$ORT_DIR/include/onnxruntime_c_api.h" || ! -f "$ORT_STAMP" ]] || \
   [[ "$(cat "$ORT_STAMP")" != "$ORT_PINS" ]]; then
  rm -f "$ORT_STAMP"
  tgz="$("${FETCH[@]}" npm "$LOCK" --cache "$CACHE")"
  member="$(tar -tzf "$tgz" | grep -E '/linux/x64/libonnxruntime\.so\.1$' | head -n1)"
  [[ -n "$member" ]] || { log "no linux/x64 libonnxruntime.so.1 in $tgz"; exit 1; }
  mkdir -p "$ORT_DIR/lib"
  tar -xzf "$tgz" -O "$member" > "$ORT_LIB.part"
  mv "$ORT_LIB.part" "$ORT_LIB"

  # --- ONNX Runtime headers: the source build's copy in the cache (scripts/build_requirements.sh) ------
  rm -rf "$ORT_DIR/include.part" && mkdir -p "$ORT_DIR/include.part"
  cp -p "$ORT_HEADERS"/*.h "$ORT_DIR/include.part/"   # the package's times: the same bytes rebuild nothing
  rm -rf "$ORT_DIR/include" && mv "$ORT_DIR/include.part" "$ORT_DIR/include"
  printf '%s\n' "$ORT_PINS" > "$ORT_STAMP"
fi

# --- ONNX Runtime releases of the runtime matrix (scripts/runtimes.lock; cached, each re-checked) ----------
python3 "$ROOT/scripts/fetch_runtimes.py" --lock "$ROOT/scripts/runtimes.lock" --cache "$CACHE" >/dev/null

# --- Python virtualenv -----------------------------------------------------------------------
# Exactly requirements.lock: every wheel checked against it in $CACHE/wheels (only what is missing or
# refused is downloaded), then installed offline with pip's own hash check and no dependency resolution.
VENV="$ROOT/.venv"
STAMP="$VENV/.nnx-requirements"
if [[ ! -f "$STAMP" ]] || ! cmp -s "$STAMP" "$LOCK"; then
  [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
  WHEELS="$CACHE/wheels"
  "${FETCH[@]}" wheels "$LOCK" --cache "$CACHE" --python "$VENV/bin/python"
  log "installing requirements.lock into .venv from $WHEELS"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps --no-index \
    --find-links "$WHEELS" -r "$LOCK"
  cp "$LOCK" "$STAMP"
fi
log "ready: ONNX Runtime in .deps/onnxruntime, Python in .venv (requirements.lock)"
"$ROOT/scripts/install_original.sh"   # the published original, for tests/e2e/test_original_snippet.py
"$ROOT/scripts/wheel.sh" fetch >/dev/null   # the wheel's tools (scripts/wheel-tools.lock) into the cache, for make wheel
