"""One verdict per problem (doc/record-format.md §7, "One verdict per problem"; issue 27).

The same problem gives the same class and exit code in `verify`, `execute`, the C++ API (the installed
package's consumer, tests/consumer/) and Python; a mistyped root or profile folder is a usage error naming the
path; `validate` says which document it got and validates a runtime matrix as one; a record whose own numbers
contradict its verdicts is refused by `validate` (naming the case) and rendered by no `report`. Real runs,
real artifact folders and real ONNX Runtime throughout; tampering is done on copies.
"""
import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, BUNDLED_ORT, run_cli
from support import copy_artifacts, write_json
from test_installed_package import consumer  # noqa: F401  (the fixture: the C++ API's consumer program)

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

DYNAMO = "feedfwd-fp32-dynamo"
HASH_MISMATCH = 14


@pytest.fixture()
def copied(both_profiles, tmp_path):
    """A private copy of the both-profiles report and its artifacts: (report path, report, artifact root)."""
    _, report, artifacts = both_profiles
    root = copy_artifacts(artifacts, tmp_path)
    return write_json(tmp_path / "report.json", report), report, root


def flip_a_byte(root):
    model = root / DYNAMO / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0x01
    model.write_bytes(bytes(data))


def test_a_flipped_byte_is_hash_mismatch_14_in_verify_execute_the_cpp_api_and_python(copied, consumer):  # noqa: F811
    path, report, root = copied
    flip_a_byte(root)
    verified = run_cli("verify", path, root)
    assert verified.returncode == HASH_MISMATCH, verified.stdout + verified.stderr
    assert f"{DYNAMO}: model.onnx: hash mismatch" in verified.stderr.splitlines()
    assert verified.stderr.splitlines()[-1].startswith("nnx-conformance: verify: hash-mismatch (exit code 14)")
    executed = run_cli("execute", path, root)
    assert executed.returncode == HASH_MISMATCH, executed.stdout + executed.stderr
    assert f"{DYNAMO}: failed (hash-mismatch)" in executed.stdout
    _, program = consumer
    api = subprocess.run([str(program), str(path), str(root)], capture_output=True, text=True, timeout=900)
    assert api.returncode == HASH_MISMATCH, api.stdout + api.stderr
    assert "verify: refused (hash-mismatch, exit code 14)" in api.stdout
    record = report["profiles"][1]
    with pytest.raises(ec.ConformanceError) as refused:
        ec.verify_artifacts(record, root)
    assert refused.value.failure == "hash-mismatch" and refused.value.exit_code == HASH_MISMATCH
    assert refused.value.exit_code == ec.EXIT_CODES["hash-mismatch"]
    again = ec.execute(record, root)
    assert again["failure"] == refused.value.failure and ec.exit_code([again]) == refused.value.exit_code


def test_several_files_exit_with_the_first_failing_ones_code(copied, tmp_path):
    path, report, root = copied
    edited = json.loads(json.dumps(report["profiles"][0]))
    edited["tolerances"]["rtol"] = 0.001
    bad = write_json(tmp_path / "edited.json", edited)
    flip_a_byte(root)
    assert run_cli("verify", path, bad, root).returncode == HASH_MISMATCH
    assert run_cli("verify", bad, path, root).returncode == 1


@pytest.mark.parametrize("where", ["root", "profile-folder"])
def test_a_mistyped_root_or_profile_folder_is_a_usage_error_naming_the_path(copied, tmp_path, where):
    path, report, root = copied
    if where == "root":
        typo = tmp_path / "report-artifacs"
        named = str(typo)
    else:
        shutil.move(root / DYNAMO, tmp_path / "moved")
        typo, named = root, str(root / DYNAMO)
    runtime = ["--onnxruntime", BUNDLED_ORT]
    for verb in (["verify", path, typo], ["execute", path, typo],
                 ["matrix", path, typo, "--output", tmp_path / "m.json", *runtime]):
        done = run_cli(*verb)
        assert done.returncode == 2, (verb[0], done.stdout, done.stderr)
        assert named in done.stderr and "usage error" in done.stderr, (verb[0], done.stderr)
        assert "hash" not in done.stderr, (verb[0], done.stderr)
    assert not (tmp_path / "m.json").exists()
    record = report["profiles"][1]
    for call in (ec.verify_artifacts, ec.execute):
        with pytest.raises(ec.UsageError, match=re.escape(named)) as refused:
            call(record, typo)
        assert refused.value.exit_code == 2


def test_validate_says_which_document_it_got_and_validates_a_matrix_as_one(copied, tmp_path):
    path, report, root = copied
    record = write_json(tmp_path / "record.json", report["profiles"][0])
    matrix = tmp_path / "matrix.json"
    made = run_cli("matrix", path, root, "--output", matrix, "--onnxruntime", BUNDLED_ORT)
    assert made.returncode == 0, made.stdout + made.stderr
    done = run_cli("validate", path, record, matrix)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{path}: valid (2 record(s)), a report (nnx.export-conformance/1)",
        f"{record}: valid (1 record(s)), a record (nnx.export-conformance/1)",
        f"{matrix}: valid (2 record(s)), a runtime matrix (nnx.runtime-matrix/1)"]
    document = json.loads(matrix.read_text())
    document["status"] = "failed"
    edited = write_json(tmp_path / "edited-matrix.json", document)
    refused = run_cli("validate", edited)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"{edited}: runtime matrix: status: is not what its runtimes' records and outputs give (\"passed\")",
        f"{edited}: a runtime matrix (nnx.runtime-matrix/1), refused"]
    verified = run_cli("verify", matrix, root)
    assert verified.returncode == 2 and "a runtime matrix (nnx.runtime-matrix/1), not a record or report" in \
        verified.stderr
    other = write_json(tmp_path / "other.json", {"hello": 1})
    assert "not a document nnx-conformance writes" in run_cli("validate", other).stderr


def entry_of(record, name):
    (entry,) = [t for t in record["stages"]["parity"]["detail"]["triangulation"] if t["case"] == name]
    return entry


def refused_by_validate_and_report(tmp_path, record, needle):
    path = write_json(tmp_path / "contradicting.json", record)
    done = run_cli("validate", path)
    assert done.returncode == 1 and needle in done.stderr, done.stderr
    with pytest.raises(ec.ConformanceError, match=re.escape(needle)):
        ec.validate_record(record)
    rendered = run_cli("report", path, "--html", tmp_path / "r.html")
    assert rendered.returncode == 1 and "is not a valid record, so nothing is rendered" in rendered.stderr
    assert needle in rendered.stderr and not (tmp_path / "r.html").exists()
    assert "✅" not in run_cli("report", path).stdout


def test_a_passed_case_with_a_margin_of_5000_is_refused_naming_the_case(copied, tmp_path):
    _, report, _ = copied
    record = json.loads(json.dumps(report["profiles"][0]))
    case = record["input_cases"][0]
    case["max_abs_error"] = 0.5
    entry_of(record, case["name"])["margin"] = 5000.0
    refused_by_validate_and_report(
        tmp_path, record, f"input_cases[0] ({case['name']}): passed (outcome \"match\") although its margin 5000.0 "
                          "is not within the tolerance (at most 1)")


def test_a_mismatch_within_its_margin_is_refused_naming_the_case(copied, tmp_path):
    _, report, _ = copied
    record = json.loads(json.dumps(report["profiles"][0]))
    (index, case), *_ = [(i, c) for i, c in enumerate(record["input_cases"]) if c["outcome"] == "match"]
    case.update(outcome="mismatch", passed=False, failure="mismatch")
    record["stages"]["parity"].update(status="failed", failure="mismatch",
                                      detail={**record["stages"]["parity"]["detail"], "failed_cases": [case["name"]]})
    record.update(status="failed", failure="mismatch", level="structural")
    margin = entry_of(record, case["name"])["margin"]
    assert margin <= 1
    refused_by_validate_and_report(
        tmp_path, record, f"input_cases[{index}] ({case['name']}): failed (outcome \"mismatch\") although its margin "
                          f"{json.dumps(margin)} is within the tolerance (at most 1)")


def test_a_triangulation_naming_no_compared_case_is_refused(copied, tmp_path):
    _, report, _ = copied
    record = json.loads(json.dumps(report["profiles"][0]))
    entry_of(record, record["input_cases"][0]["name"])["case"] = "batch-4096"
    refused_by_validate_and_report(tmp_path, record, "\"batch-4096\" names no input case of the record")
    rejected = next(i for i, c in enumerate(record["input_cases"]) if c["outcome"] == "rejected")
    entry_of(record, "batch-4096")["case"] = record["input_cases"][rejected]["name"]
    refused_by_validate_and_report(tmp_path, record, "which was not compared (no errors)")


def test_the_tested_profiles_records_still_validate_with_their_margins(copied):
    path, report, _ = copied
    for record in report["profiles"]:
        for case in record["input_cases"]:
            if case["outcome"] == "match":
                assert entry_of(record, case["name"])["margin"] <= 1
        ec.validate_record(record)
    assert run_cli("validate", path).returncode == 0
