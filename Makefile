# The two commands of the README. Both bootstrap first (idempotent), then build.
.PHONY: all bootstrap build conformance test clean

BUILD := build
VENV_PY := .venv/bin/python

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j 2

conformance: build
	$(VENV_PY) scripts/check_export_conformance.py --output conformance/conformance.json --force

test: build
	@scripts/run_tests.sh

clean:
	rm -rf $(BUILD)
