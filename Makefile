# The two commands of the README. Both bootstrap first (idempotent), then build what they run: `make conformance`
# the command line and the Python package only, `make test` every target.
.PHONY: all bootstrap configure programs build conformance test slow-lane clean lock runtimes wheel

BUILD := build
VENV_PY := .venv/bin/python

all: build

bootstrap:
	@scripts/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

# What a conformance run needs (CMake target nnx_run_programs): the command line and the Python package nnx.
programs: configure
	@cmake --build $(BUILD) -j 2 --target nnx_run_programs

# Those and the C++ package (`cmake --install`, doc/cpp-api.md); no test program.
build: programs
	@cmake --build $(BUILD) -j 2 --target nnx_conformance

conformance: programs
	$(VENV_PY) scripts/check_export_conformance.py --output conformance/conformance.json --force

# The portable wheel (doc/install.md): dist/nnx_conformance-*.whl, repaired by auditwheel, whose policy it prints.
# From the build requirements alone (no bootstrap, no .venv): the Debian packages and the ONNX Runtime headers
# (scripts/build_requirements.sh), then the setup step that fetches scripts/wheel-tools.lock into the cache and
# makes build/wheel-tools; the build itself downloads nothing.
wheel:
	@scripts/build_requirements.sh >/dev/null
	@scripts/wheel.sh fetch
	@scripts/wheel.sh

# Every target (test tools and fakes, the GoogleTest units, the benchmarks), then every test.
test: configure
	@cmake --build $(BUILD) -j 2
	@scripts/run_tests.sh

# The slower lane (doc/building-and-testing.md, "The slower lane"): built as for `make test`, then pytest on
# tests/slow/ (scripts/slow_lane.sh): the real runtime matrix of ONNX Runtime 1.24.1 and 1.32.0 (`make runtimes`).
# `make test` does not run it, nor does CI.
slow-lane: configure
	@cmake --build $(BUILD) -j 2
	@scripts/slow_lane.sh

# Regenerates requirements.lock, tests/original.lock and scripts/wheel-tools.lock from their .in files (doc/building-and-testing.md,
# "Locked dependencies"): uv in a throwaway virtualenv under build/, never in .venv. Existing pins are kept
# where the wishes still allow them; `make lock UPGRADE=1` takes the newest versions.
LOCK_VENV ?= $(BUILD)/lock-tools
UV_VERSION := 0.13.8
lock:
	@[ -x $(LOCK_VENV)/bin/uv ] && [ "$$($(LOCK_VENV)/bin/uv --version | cut -d' ' -f2)" = $(UV_VERSION) ] || \
	  { python3 -m venv --clear $(LOCK_VENV) && $(LOCK_VENV)/bin/python -m pip install -q --disable-pip-version-check uv==$(UV_VERSION); }
	python3 scripts/fetch_locked.py lock --root . --uv $(LOCK_VENV)/bin/uv $(if $(UPGRADE),--upgrade)

# ONNX Runtime releases for `nnx-conformance matrix --onnxruntime-version` (doc/runtime-matrix.md): each
# library checked against its package (scripts/runtimes.lock) into the cache. Empty ORT_VERSIONS: the lock's set.
ORT_VERSIONS ?=
runtimes:
	@python3 scripts/fetch_runtimes.py --lock scripts/runtimes.lock --cache "$${NNX_CACHE:-$$HOME/.cache/nnx-conformance}" $(ORT_VERSIONS) >/dev/null

clean:
	rm -rf $(BUILD)
