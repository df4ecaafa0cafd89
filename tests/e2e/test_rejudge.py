"""Verdicts re-judged without re-running (doc/rejudge.md): `execute --keep-outputs` and a matrix keep every
compared case's outputs and the reference values beside their document as hash-listed ONNX tensor files, and
`rejudge` compares them again under other tolerances into a document of its own, naming every verdict that
changes and exiting as `execute` would.

The model: six elementwise operators side by side over 4,096 values (an ONNX file with its data, the reference
ONNX's reference evaluator, numpy's float32), judged by rtol 1e-4 and atol 1e-5: ONNX Runtime's vectorised
Exp, Tanh, Erf, Sin and Softplus give other float32 values than numpy's for some of the 4,096 inputs (a few
ulps), so the case passes under its own tolerance and fails under zero tolerance, on any release."""
import json
import shutil

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import require_runtime, run_cli
from onnx_file_support import elementwise_profile
from support import sha256_of

OPS = ["Exp", "Tanh", "Erf", "Sin", "Softplus", "Sigmoid"]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    require_runtime()
    folder = tmp_path_factory.mktemp("rejudge")
    (folder / "profiles.json").write_text(json.dumps([elementwise_profile(folder / "model", OPS, 1e-4, 1e-5)]))
    done = run_cli("run", "--profile-file", folder / "profiles.json", "--output", folder / "report.json", "--no-localize")
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_cli("execute", folder / "report.json", folder / "report-artifacts", "--output", folder / "ex.json",
                   "--keep-outputs")
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def rejudge(folder, document, *flags):
    return run_cli("rejudge", folder / document, "--output", folder / "rejudged.json", *flags)


def test_execute_keeps_the_outputs_and_reference_as_hash_listed_tensor_files_beside_its_output(executed):
    listing = json.loads((executed / "ex-outputs" / "outputs.json").read_text())
    assert listing["format"] == "nnx.kept-outputs/1"
    assert listing["document_sha256"] == sha256_of(executed / "ex.json")
    (record,) = listing["records"]
    (case,) = record["cases"]
    assert (record["profile"], case["case"]) == ("elementwise", "data-set-0")
    for entry in case["outputs"] + case["references"]:
        assert sha256_of(executed / "ex-outputs" / entry["file"]) == entry["sha256"]
        assert (entry["name"], entry["dtype"], entry["shape"]) == ("cat", "float32", [6, 4096])
    reference = numpy_helper.to_array(onnx.load_tensor(str(executed / "ex-outputs" / case["references"][0]["file"])))
    given = numpy_helper.to_array(onnx.load_tensor(str(executed / "model" / "test_data_set_0" / "output_0.pb")))
    assert np.array_equal(reference, given)  # the values the verdict compared with, bit for bit


def test_under_the_records_own_tolerance_no_verdict_changes(executed):
    done = rejudge(executed, "ex.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rejudge: 0 verdict(s) change" in done.stdout
    document = json.loads((executed / "rejudged.json").read_text())
    assert (document["format"], document["status"], document["changed"]) == ("nnx.rejudged/1", "passed", 0)
    (record,) = document["records"]
    assert record["tolerance"]["why"] == "the record's own rtol and atol"
    assert [c["before"] == c["after"] and c["rejudged"] for c in record["cases"]] == [True]


def test_under_zero_tolerance_the_case_fails_and_is_named_with_execute_s_exit_code(executed):
    done = rejudge(executed, "ex.json", "--rtol", "0", "--atol", "0")
    assert done.returncode == 16, done.stdout + done.stderr  # mismatch, as execute exits for it
    assert "elementwise case data-set-0: match -> mismatch (max_abs_error " in done.stdout
    assert "rejudge: 1 verdict(s) change" in done.stdout
    document = json.loads((executed / "rejudged.json").read_text())
    (record,) = document["records"]
    assert (record["before"], record["after"]) == ({"status": "passed", "failure": None},
                                                   {"status": "failed", "failure": "mismatch"})
    assert (record["tolerance"]["rtol"], record["tolerance"]["atol"]) == (0, 0)
    assert record["tolerance"]["why"] == "--rtol and --atol as asked"
    (case,) = record["cases"]
    assert case["changed"] and case["after"]["max_abs_error"] == case["before"]["max_abs_error"] > 0
    assert json.loads((executed / "ex.json").read_text())["profiles"][0]["status"] == "passed"  # never rewritten


def test_a_changed_tensor_file_or_another_document_is_refused_naming_it(executed, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(executed, copy)
    listing = json.loads((copy / "ex-outputs" / "outputs.json").read_text())
    file = copy / "ex-outputs" / listing["records"][0]["cases"][0]["outputs"][0]["file"]
    data = bytearray(file.read_bytes())
    data[-1] ^= 1
    file.write_bytes(bytes(data))
    done = rejudge(copy, "ex.json")
    assert done.returncode == 1 and "its sha256 is not the one outputs.json lists" in done.stderr, done.stderr
    shutil.copytree(executed / "ex-outputs", copy / "ex-outputs", dirs_exist_ok=True)
    (copy / "ex.json").write_text((copy / "ex.json").read_text() + "\n")
    done = rejudge(copy, "ex.json")
    assert done.returncode == 1 and "belongs to another document" in done.stderr, done.stderr
    done = rejudge(copy, "report.json")
    assert done.returncode == 2 and "no kept outputs" in done.stderr, done.stderr


def test_keep_outputs_needs_an_output_and_never_replaces_a_folder_of_the_users(executed, tmp_path):
    done = run_cli("execute", executed / "report.json", executed / "report-artifacts", "--keep-outputs")
    assert done.returncode == 2 and "--keep-outputs keeps the outputs beside --output" in done.stderr, done.stderr
    (tmp_path / "mine-outputs").mkdir()
    (tmp_path / "mine-outputs" / "notes.txt").write_text("mine")
    done = run_cli("execute", executed / "report.json", executed / "report-artifacts", "--output",
                   tmp_path / "mine.json", "--keep-outputs")
    assert done.returncode == 2 and "holds files that are not kept outputs" in done.stderr, done.stderr
    assert (tmp_path / "mine-outputs" / "notes.txt").read_text() == "mine" and not (tmp_path / "mine.json").exists()


def test_a_matrix_keeps_every_cells_outputs_and_a_merge_keeps_its_shards_or_says_why_not(executed):
    runtimes = ["--onnxruntime-version", "1.24.4", "--onnxruntime-version", "1.32.0"]
    args = [executed / "report.json", executed / "report-artifacts"]
    done = run_cli("matrix", *args, "--output", executed / "m.json", *runtimes)
    assert done.returncode == 0, done.stdout + done.stderr
    listing = json.loads((executed / "m-outputs" / "outputs.json").read_text())
    assert sorted(r["runtime"] for r in listing["records"]) == ["1.24.4", "1.32.0"]
    for k in (0, 1):
        done = run_cli("matrix", *args, "--output", executed / f"part{k}.json", *runtimes, "--shard", f"{k}/2")
        assert done.returncode == 0, done.stdout + done.stderr
    done = run_cli("matrix-merge", executed / "merged.json", executed / "part0.json", executed / "part1.json")
    assert done.returncode == 0, done.stdout + done.stderr
    changes = {}
    for document in ("m.json", "merged.json"):
        done = rejudge(executed, document, "--rtol", "0", "--atol", "0")
        assert done.returncode == 16, done.stdout + done.stderr
        changes[document] = sorted(line for line in done.stdout.splitlines() if "->" in line)
    assert changes["m.json"] == changes["merged.json"]
    assert [line.split("  ")[0] for line in changes["m.json"]] == ["rejudge: onnxruntime 1.24.4",
                                                                   "rejudge: onnxruntime 1.32.0"]
    assert rejudge(executed, "merged.json").returncode == 0
    shutil.rmtree(executed / "part1-outputs")  # a part that kept nothing: the merge says so and keeps none
    done = run_cli("matrix-merge", executed / "merged.json", executed / "part0.json", executed / "part1.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "part1.json has no kept outputs beside it" in done.stderr
    assert not (executed / "merged-outputs").exists()  # the older one removed: nothing stale beside it


def test_the_python_api_keeps_and_rejudges_as_the_command_line_does(executed, tmp_path):
    import sys
    from conftest import BUILD
    sys.path.insert(0, str(BUILD / "python"))
    import nnx.export_conformance as api
    report = api.execute(executed / "report.json", executed / "report-artifacts", output=tmp_path / "py.json",
                         keep_outputs=True)
    assert report["status"] == "passed" and (tmp_path / "py-outputs" / "outputs.json").exists()
    own = api.rejudge(tmp_path / "py.json")
    zero = api.rejudge(tmp_path / "py.json", rtol=0, atol=0, output=tmp_path / "r.json")
    assert (own["changed"], own["exit_code"]) == (0, 0)
    assert (zero["changed"], zero["exit_code"], zero["status"]) == (1, 16, "failed")
    assert json.loads((tmp_path / "r.json").read_text()) == zero
    with pytest.raises(api.UsageError, match="keep_outputs keeps the outputs beside output"):
        api.execute(executed / "report.json", executed / "report-artifacts", keep_outputs=True)
    with pytest.raises(api.ArgumentError, match="rtol must be a number or None, not bool"):
        api.rejudge(tmp_path / "py.json", rtol=True)
    with pytest.raises(api.UsageError, match="atol must be a number >= 0"):
        api.rejudge(tmp_path / "py.json", atol=-1)
