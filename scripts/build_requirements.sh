#!/usr/bin/env bash
# What `pip install .` needs to build the wheel (doc/install.md, "Building from source"), idempotently; a
# setup command: the only part of a source build that downloads.
#
#   Debian packages   g++, cmake, ninja-build, libssl-dev, nlohmann-json3-dev, libopenblas-dev, libprotobuf-dev,
#                     protobuf-compiler, python3-venv, ccache (CMakeLists.txt's compiler launcher when present:
#                     a rebuild's objects from its cache): only the missing ones, with sudo when not root
#   ONNX Runtime      the C/C++ headers of requirements.lock's Debian trixie libonnxruntime-dev, checked against
#   headers           the lock by scripts/fetch_locked.py (a private apt configuration: the system's sources are
#                     never changed, no trixie package is installed), extracted into
#                     $NNX_CACHE/onnxruntime-headers/include (NNX_CACHE: default ~/.cache/nnx-conformance),
#                     where CMake finds them (cmake/ort_headers.cmake); remade only when the lock's pin changes
#
# `build_requirements.sh headers` does the headers only, and `build_requirements.sh debs PACKAGE...` installs
# the named packages that are missing (scripts/bootstrap.sh runs both, with its own, larger, list of packages).
# Prints the headers folder last, on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NNX_CACHE:-$HOME/.cache/nnx-conformance}"
LOCK="$ROOT/requirements.lock"
log() { printf 'build_requirements: %s\n' "$*" >&2; }

BUILD_PACKAGES=(g++ cmake ninja-build libssl-dev nlohmann-json3-dev libopenblas-dev libprotobuf-dev
                protobuf-compiler python3-venv ccache)

# Installs those of the named Debian packages that are not installed (sudo when not root).
install_debs() {
  local missing=() p SUDO=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "installing Debian packages: ${missing[*]}"
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The headers folder, made from the lock's .deb when its stamp is not the lock's pin.
ort_headers() {
  local dir="$CACHE/onnxruntime-headers" pin deb tmp hdr
  pin="$(grep -E '^#@ deb ' "$LOCK")"
  if [[ ! -f "$dir/include/onnxruntime_c_api.h" || "$(cat "$dir/.nnx-lock" 2>/dev/null)" != "$pin" ]]; then
    mkdir -p "$dir"
    rm -f "$dir/.nnx-lock"
    deb="$(python3 "$ROOT/scripts/fetch_locked.py" deb "$LOCK" --cache "$CACHE")"
    tmp="$(mktemp -d)"
    dpkg-deb -x "$deb" "$tmp"
    hdr="$(dirname "$(find "$tmp" -name onnxruntime_c_api.h | head -n1)")"
    [[ -f "$hdr/onnxruntime_c_api.h" ]] || { log "no onnxruntime_c_api.h in $deb"; rm -rf "$tmp"; exit 1; }
    rm -rf "$dir/include.part" && mkdir -p "$dir/include.part"
    cp -p "$hdr"/*.h "$dir/include.part/"   # the package's times: the same bytes rebuild nothing
    rm -rf "$dir/include" && mv "$dir/include.part" "$dir/include"
    rm -rf "$tmp"
    printf '%s\n' "$pin" > "$dir/.nnx-lock"
    log "ONNX Runtime headers in $dir/include"
  fi
  echo "$dir/include"
}

case "${1:-all}" in
  all) install_debs "${BUILD_PACKAGES[@]}"; ort_headers ;;
  headers) ort_headers ;;
  debs) shift; install_debs "$@" ;;
  *) log "usage: $0 [headers | debs PACKAGE...]"; exit 2 ;;
esac
