"""Untrusted record text never drives the terminal (base/terminal_text.h): a record's ESC, BEL and C1
controls reach `report`'s stdout and `validate`'s stderr spelled as text (`\\x1b`), while the record itself
and the Python API keep the text as it was."""
import json
import os
import sys

from conftest import BUILD
from hostile_support import cli, copy_report

sys.path.insert(0, str(BUILD / "python"))

HOSTILE = "2.13\x1b]0;owned\x07\x1b[2J\u009b31m"
SPELLED = "2.13\\x1b]0;owned\\x07\\x1b[2J\\u009b31m"
RAW_CONTROLS = ("\x1b", "\x07", "\u009b")


def with_hostile_text(report_path, **changes):
    report = json.loads(report_path.read_text())
    for record in report["profiles"]:
        record["versions"]["torch"] = HOSTILE
        record["stages"]["dependencies"]["detail"]["torch"] = HOSTILE
        record.update(changes)
    report_path.write_text(json.dumps(report))
    return report_path


def test_report_prints_a_records_control_characters_as_text(both_profiles, tmp_path):
    report, _ = copy_report(both_profiles, tmp_path)
    with_hostile_text(report)
    done = cli("report", report, env=dict(os.environ), timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(spelled in done.stdout for spelled in ("2.13\\x1b", "owned\\x07", "\\u009b31m")), done.stdout
    assert not any(c in done.stdout + done.stderr for c in RAW_CONTROLS)


def test_validate_names_a_hostile_profile_name_without_its_control_characters(both_profiles, tmp_path):
    report, _ = copy_report(both_profiles, tmp_path)
    with_hostile_text(report, profile="x" + HOSTILE)
    done = cli("validate", report, env=dict(os.environ), timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f'profile name "x{SPELLED}" is not a plain name' in done.stderr
    assert not any(c in done.stdout + done.stderr for c in RAW_CONTROLS)


def test_the_python_api_keeps_the_text_as_it_was(both_profiles, tmp_path):
    import nnx.export_conformance as ec

    report, _ = copy_report(both_profiles, tmp_path)
    with_hostile_text(report, profile="x" + HOSTILE)
    (problems, _) = ec.validate_records(json.loads(report.read_text())["profiles"])
    assert any(f'"x{HOSTILE}"' in p for p in problems), problems
