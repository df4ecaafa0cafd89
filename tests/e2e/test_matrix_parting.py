"""Where two releases part (doc/runtime-matrix.md, "Where two releases part"): a matrix cell beyond the
tolerance of the newest gets the first node where its values part from the newest release's, from the
localisation engine, in the document's `partings` and its summary.

A real departure between real releases: fourteen elementwise operators side by side (an ONNX file with its
data, judged with zero tolerance), run under ONNX Runtime 1.16.3, 1.24.4 and 1.32.0 from the lock. 1.16.3's
Softplus, Atan, Mish, Elu and Selu kernels give other float32 values than 1.32.0's (up to 16 ulps); 1.24.4's
are 1.32.0's bit for bit. So 1.16.3 parts from 1.32.0 first at the Softplus node, which introduces it (run
alone on 1.32.0's inputs it still differs), at the record's level and at ORT_DISABLE_ALL alike (a kernel,
not an optimisation), and 1.24.4 has no parting."""
import json

import pytest

from conftest import require_runtime, run_cli
from onnx_file_support import elementwise_profile

OPS = ["Erf", "Tanh", "Exp", "Sigmoid", "Softplus", "Sin", "Cos", "Atan", "Asinh", "Mish", "HardSwish", "Elu", "Selu"]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    require_runtime()
    folder = tmp_path_factory.mktemp("parting")
    (folder / "profiles.json").write_text(json.dumps([elementwise_profile(folder / "model", OPS, 0, 0)]))
    run_cli("run", "--profile-file", folder / "profiles.json", "--output", folder / "report.json", "--no-localize")
    done = run_cli("matrix", folder / "report.json", folder / "report-artifacts", "--output", folder / "m.json",
                   "--onnxruntime-version", "1.16.3", "--onnxruntime-version", "1.24.4",
                   "--onnxruntime-version", "1.32.0")
    assert (folder / "m.json").exists(), done.stdout + done.stderr
    return done, json.loads((folder / "m.json").read_text()), folder


def test_a_release_beyond_the_tolerance_of_the_newest_parts_from_it_at_the_first_node_its_kernel_changed(matrix):
    _, document, _ = matrix
    (parting,) = document["partings"]
    assert (parting["profile"], parting["version"], parting["newest"]) == ("elementwise", "1.16.3", "1.32.0")
    found = parting["localisation"]
    assert found["status"] == "departs", found
    first = found["first_departing"]
    assert (first["op_type"], first["node"], first["value"]) == ("Softplus", "node_softplus", "softplus_out")
    assert first["rerun"]["verdict"] == "introduces"
    assert [level["first_departing"] for level in found["levels"]] == ["softplus_out", "softplus_out"]
    departing = {step["op_type"] for step in found["levels"][1]["path"] if step["departs"]}
    assert {"Softplus", "Atan", "Mish", "Elu", "Selu"} <= departing and "Erf" not in departing
    assert found["coverage"]["reference"] == "ONNX Runtime 1.32.0, the reference cell,"
    assert found["coverage"]["aligned"] == len(OPS) + 1


def test_the_summary_names_the_parting_and_the_document_stays_valid(matrix):
    done, _, folder = matrix
    assert "parting: 1.16.3 against 1.32.0 on elementwise (case data-set-0): ONNX Runtime first departs from " \
           "ONNX Runtime 1.32.0, the reference cell, at Softplus node 'node_softplus'" in done.stdout
    assert run_cli("validate", folder / "m.json").returncode == 0
