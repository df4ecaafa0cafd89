#!/usr/bin/env bash
# Bootstraps everything the build and the tests need, idempotently.
#
#   Debian packages   cmake, ninja, g++, OpenSSL, nlohmann-json, GoogleTest, Google Benchmark, OpenBLAS, clang,
#                     protobuf (libprotobuf-dev, protobuf-compiler: the model reader compiles .venv's onnx.proto)
#   ONNX Runtime      libonnxruntime.so.1 (1.30.0) from the npm package onnxruntime-node@1.30.0 (only that
#                     file; its install script is never run), C/C++ headers (API 21) from Debian trixie's
#                     libonnxruntime-dev, fetched with a private apt configuration (the system's apt sources
#                     are never changed and no trixie package is installed)
#   .venv/            torch 2.13.0, onnx, onnxscript, numpy, pytest
#
# Downloads are cached in $NNX_CACHE (default ~/.cache/nnx-conformance; Python wheels in its wheels/),
# outside the checkout, so a fresh clone reuses them. A second run downloads nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
DEPS="$ROOT/.deps"
ORT_VERSION=1.30.0
TORCH_VERSION=2.13.0
mkdir -p "$CACHE" "$DEPS"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------------------------
DEB_PACKAGES=(cmake ninja-build g++ make libssl-dev nlohmann-json3-dev libgtest-dev libgmock-dev
              libbenchmark-dev libopenblas-dev libcli11-dev clang libclang-rt-14-dev python3-venv strace time
              libprotobuf-dev protobuf-compiler)
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- ONNX Runtime shared library (npm package, file only) -------------------------------------
ORT_DIR="$DEPS/onnxruntime"
ORT_LIB="$ORT_DIR/lib/libonnxruntime.so.1"
if [[ ! -f "$ORT_LIB" ]]; then
  tgz="$CACHE/onnxruntime-node-$ORT_VERSION.tgz"
  if [[ ! -f "$tgz" ]]; then
    log "fetching onnxruntime-node@$ORT_VERSION (npm pack, no install script)"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
    mv "$tmp"/onnxruntime-node-$ORT_VERSION.tgz "$tgz.part" && mv "$tgz.part" "$tgz"
    rm -rf "$tmp"
  fi
  member="$(tar -tzf "$tgz" | grep -E '/linux/x64/libonnxruntime\.so\.1$' | head -n1)"
  [[ -n "$member" ]] || { log "no linux/x64 libonnxruntime.so.1 in $tgz"; exit 1; }
  mkdir -p "$ORT_DIR/lib"
  tar -xzf "$tgz" -O "$member" > "$ORT_LIB.part"
  mv "$ORT_LIB.part" "$ORT_LIB"
fi

# --- ONNX Runtime headers (Debian trixie libonnxruntime-dev, private apt configuration) ------
if [[ ! -f "$ORT_DIR/include/onnxruntime_c_api.h" ]]; then
  APT="$CACHE/apt-trixie"
  mkdir -p "$APT/lists/partial" "$APT/archives/partial"
  # The Debian mirror the system's apt already uses, asked for the trixie suite.
  mirror="$(grep -hoE '^URIs:[[:space:]]*[^[:space:]]+/debian$' /etc/apt/sources.list.d/*.sources 2>/dev/null \
            | awk '{print $2}' | head -n1 || true)"
  [[ -n "$mirror" ]] || mirror="$(grep -hoE '^deb[[:space:]]+[^[:space:]]+/debian[[:space:]]' /etc/apt/sources.list 2>/dev/null \
            | awk '{print $2}' | head -n1 || true)"
  [[ -n "$mirror" ]] || { log "no Debian mirror found in the system's apt sources"; exit 1; }
  echo "deb $mirror trixie main" > "$APT/sources.list"
  apt_opts=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=-"
            -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache::Archives=$APT/archives"
            -o "Dir::Cache=$APT" -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=root")
  deb="$(ls "$APT"/debs/libonnxruntime-dev_*.deb 2>/dev/null | head -n1 || true)"
  if [[ -z "$deb" ]]; then
    log "fetching libonnxruntime-dev from trixie (private apt configuration)"
    apt-get "${apt_opts[@]}" update -qq
    mkdir -p "$APT/debs"
    (cd "$APT/debs" && apt-get "${apt_opts[@]}" download libonnxruntime-dev >/dev/null)
    deb="$(ls "$APT"/debs/libonnxruntime-dev_*.deb | head -n1)"
  fi
  tmp="$(mktemp -d)"
  dpkg-deb -x "$deb" "$tmp"
  hdr="$(dirname "$(find "$tmp" -name onnxruntime_c_api.h | head -n1)")"
  mkdir -p "$ORT_DIR/include.part"
  cp "$hdr"/*.h "$ORT_DIR/include.part/"
  rm -rf "$ORT_DIR/include" && mv "$ORT_DIR/include.part" "$ORT_DIR/include"
  rm -rf "$tmp"
fi

# --- Python virtualenv -----------------------------------------------------------------------
VENV="$ROOT/.venv"
STAMP="$VENV/.nnx-requirements"
REQS="$ROOT/requirements.txt"
if [[ ! -f "$STAMP" ]] || ! cmp -s "$STAMP" "$REQS"; then
  [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
  # Wheels live in $CACHE/wheels: installed offline from there; only what is missing is downloaded.
  WHEELS="$CACHE/wheels"
  mkdir -p "$WHEELS"
  pip_offline=("$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$WHEELS")
  if ! "${pip_offline[@]}" -r "$REQS" 2>/dev/null; then
    log "downloading Python wheels into $WHEELS (outside the checkout)"
    "$VENV/bin/python" -m pip download -q --disable-pip-version-check -d "$WHEELS" -r "$REQS"
    log "installing Python requirements into .venv from $WHEELS"
    "${pip_offline[@]}" -r "$REQS"
  fi
  cp "$REQS" "$STAMP"
fi
log "ready: ONNX Runtime $ORT_VERSION in .deps/onnxruntime, Python in .venv"
"$ROOT/scripts/install_original.sh"   # the published original, for tests/e2e/test_original_api.py
