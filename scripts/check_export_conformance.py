#!/usr/bin/env python3
"""Runs the tested export-conformance profiles and writes the report (the brief's script).

    python scripts/check_export_conformance.py --output conformance.json
      --artifacts DIR        exported files (default: <output stem>-artifacts next to the JSON)
      --profile NAME         one tested profile (repeatable; repeats run once; default: both)
      --source-revision SHA  recorded with origin "given" (default: the git checkout nnx is built from)
      --force                clear the chosen profiles' earlier artifacts (else a non-empty folder is refused)

Everything is done by nnx.export_conformance (the C++ core behind it). Exit codes: 0 every profile passed;
10..18 the failure class of the first failing profile; 1 an error; 2 a usage error (a bad flag, an unknown
profile, a folder holding files without --force). It prints one summary line per profile, then where the
report and the artifacts are, and the exit code.

From Python, `main(argv)` returns the exit code; a usage error raises `SystemExit(2)` as argparse does (the
message on stderr), so run as a script it exits 2.

`nnx` is imported from the environment (`pip install .`). When it is not installed there, the package this
checkout's build staged is used: $NNX_BUILD_DIR/python, else build/python of this checkout (`make build`).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn, Optional

PROG = "check_export_conformance"


def import_conformance():
    try:
        import nnx.export_conformance as conformance
    except ImportError:
        build = Path(os.environ.get("NNX_BUILD_DIR") or Path(__file__).resolve().parent.parent / "build")
        staged = build / "python"
        if not (staged / "nnx").is_dir():
            raise
        sys.path.insert(0, str(staged))
        for name in [m for m in sys.modules if m == "nnx" or m.startswith("nnx.")]:
            del sys.modules[name]
        import nnx.export_conformance as conformance
    return conformance


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, SystemExit(2)
        self.exit(2, f"{PROG}: usage error: {message} (see --help)\n")


def usage_error(message: str) -> NoReturn:
    """argparse's way: the message on stderr, then SystemExit(2)."""
    print(f"{PROG}: usage error: {message}", file=sys.stderr)
    raise SystemExit(2)


def parse_args(argv: list[str], tested: list[str]) -> argparse.Namespace:
    parser = Parser(prog=PROG, description="Run the tested export-conformance profiles and write the report.")
    parser.add_argument("--output", required=True, type=Path, help="report path (parents are created)")
    parser.add_argument("--artifacts", type=Path,
                        help="exported files (default: <output stem>-artifacts next to the report)")
    # Any name is taken here: the core refuses an unknown one (the one refusal of every front end, exit 2).
    parser.add_argument("--profile", action="append", metavar="NAME",
                        help=f"a tested profile, repeatable ({', '.join(tested)}; default: both)")
    parser.add_argument("--source-revision", metavar="SHA", help="the revision to record (origin given)")
    parser.add_argument("--force", action="store_true", help="clear the chosen profiles' earlier artifacts")
    args = parser.parse_args(argv)
    if not args.output.name or args.output.is_dir():
        parser.error(f"--output must name a file, not {args.output}")
    return args


def main(argv: Optional[list[str]] = None) -> int:
    """Runs the script with `argv` (default: sys.argv[1:]) and returns its exit code; usage errors raise
    SystemExit(2)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        conformance = import_conformance()
    except ImportError as error:
        print(f"{PROG}: error: the nnx package is not importable ({error}); `pip install .` or `make build`",
              file=sys.stderr)
        return 1
    args = parse_args(argv, list(conformance.PROFILES))
    artifacts = args.artifacts if args.artifacts is not None else conformance.default_artifacts_root(args.output)
    try:
        conformance.check_output_paths([("--output", args.output)], roots=[("the artifacts root", artifacts)])
        report = conformance.run_profiles(artifacts, args.profile, source_revision=args.source_revision,
                                          force=args.force)
        conformance.save_report(report, args.output)
    except conformance.FolderInUse as error:  # the core's words, with this script's flag
        usage_error(f"{error.problems[0]}; use --force to clear the chosen profiles' folders")
    except conformance.UsageError as error:
        usage_error(str(error))
    except (conformance.ConformanceError, OSError, RuntimeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    for line in conformance.summary_lines(report):
        print(line)
    code = conformance.exit_code(report)
    print(f"report: {args.output}")
    print(f"artifacts: {artifacts}")
    print(f"exit code: {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
