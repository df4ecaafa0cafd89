#!/usr/bin/env python3
"""Runs the export-conformance profiles and writes the report (the brief's script).

    python scripts/check_export_conformance.py --output conformance.json
      --artifacts DIR        exported files (default: <output stem>-artifacts next to the JSON)
      --profile NAME         one tested profile (repeatable)
      --source-revision SHA  default: the git checkout this software is built from
      --force                clear the chosen profiles' earlier artifacts (else a non-empty folder is refused)

The work is done by the C++ core (`nnx-conformance run`); this script only finds and starts it, so the
exit codes are the core's: 0 passed, 10..18 the first failing profile's class, 1 error, 2 usage error.
The binary is $NNX_CONFORMANCE_BIN, else build/nnx-conformance of this checkout.
"""
import os
import sys
from pathlib import Path


def conformance_binary() -> Path:
    explicit = os.environ.get("NNX_CONFORMANCE_BIN")
    if explicit:
        return Path(explicit)
    return Path(__file__).resolve().parent.parent / "build" / "nnx-conformance"


def main(argv: list[str]) -> int:
    binary = conformance_binary()
    if not os.access(binary, os.X_OK):
        print(f"check_export_conformance: {binary} is missing; build it with `make build`", file=sys.stderr)
        return 1
    os.execv(binary, [str(binary), "run", *argv])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
