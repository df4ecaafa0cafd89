#!/usr/bin/env python3
"""Fails unless a pytest JUnit report records at least one test and no skip: the check both lanes make of their
pytest run (scripts/ci_evidence_lane.sh for `make test`, scripts/slow_lane.sh for `make slow-lane`).

    python scripts/junit_no_skips.py REPORT.xml

Prints `JUnit: N tests, M skipped`; exits 1 when N is 0 or any test was skipped (a skip is never a pass here).
"""
import sys
import xml.etree.ElementTree as ET


def counts(path):
    """(tests, skipped) of the JUnit report at `path`, its suites summed; a <skipped> element counts too."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tests = sum(int(s.get("tests", 0)) for s in suites)
    skipped = max(sum(int(s.get("skipped", 0)) for s in suites), len(root.findall(".//skipped")))
    return tests, skipped


def main(argv):
    if len(argv) != 2:
        print("usage: junit_no_skips.py REPORT.xml", file=sys.stderr)
        return 2
    tests, skipped = counts(argv[1])
    print(f"JUnit: {tests} tests, {skipped} skipped")
    return 0 if tests > 0 and skipped == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
