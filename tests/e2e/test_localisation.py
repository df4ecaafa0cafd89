"""Localisation (doc/localisation.md) on real departures, each exported for real, run on real ONNX Runtime and
compared with PyTorch's own intermediate values: a CNN whose second Relu was turned into a Sigmoid (the Sigmoid
introduces the error, the mean after it only carries it), a transformer block whose first feed-forward bias was
moved (introduced at that Add, carried by the Relu after it), and a real exporter departure with the locked
torch: integer floor division under the TorchScript exporter truncates (pytorch/pytorch#44692), localised to
the submodule that floors, while the dynamo export of the same module passes. Each localisation names the node,
its operator, its module path and whether it introduces the error, and its repro replays with `execute`; a
bound below the sum of the intermediates still localises."""
import json

import pytest

from conftest import require_runtime, run_cli
from headless_chromium import HeadlessChromium
from localisation_support import BLOCK, CNN, CONV_BN, edited_profile, export_edited, localisation_of, write_profiles

FLOOR = '''
import torch


class Bucket(torch.nn.Module):
    def forward(self, x):
        return (x.to(torch.int64) // 3).to(torch.float32)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Linear(6, 6)
        self.bucket = Bucket()
        self.head = torch.nn.Linear(6, 2)

    def forward(self, x):
        return self.head(self.bucket(self.scale(x) * 10.0))


def make():
    torch.manual_seed(0)
    return Net().eval()
'''


def floor_profile(folder, exporter):
    return {"name": f"floor-{exporter}", "module": f"{folder / 'floor.py'}:make", "exporter": exporter,
            "inputs": [{"name": "x", "shape": ["batch", 6]}], "dims": {"batch": [2, 3]}}


@pytest.fixture(scope="module")
def localised(tmp_path_factory):
    require_runtime()
    folder = tmp_path_factory.mktemp("localised")
    export_edited(folder / "cnn", CNN, "make", "2,3,8,8", "sigmoid")
    export_edited(folder / "block", BLOCK, "make", "2,5,16", "add-constant")
    (folder / "floor.py").write_text(FLOOR)
    profiles = write_profiles(folder / "profiles.json", [
        edited_profile(folder / "cnn", "cnn-sigmoid", "make", {"batch": [2, 3]}),
        edited_profile(folder / "block", "block-add", "make", {"batch": [2, 1]}),
        floor_profile(folder, "torchscript"), floor_profile(folder, "dynamo")])
    done = run_cli("run", "--profile-file", profiles, "--output", folder / "report.json", "--html", folder / "r.html",
                   "--markdown", folder / "r.md", "--junit", folder / "r.xml")
    assert done.returncode == 16, done.stdout + done.stderr
    report = json.loads((folder / "report.json").read_text())
    return done, {r["profile"]: r for r in report["profiles"]}, folder


def test_a_relu_turned_into_a_sigmoid_is_the_first_departing_node_and_introduces_the_error(localised):
    _, records, _ = localised
    found = localisation_of(records["cnn-sigmoid"])
    assert found["status"] == "departs"
    first = found["first_departing"]
    assert (first["op_type"], first["node"], first["value"], first["module"]) == \
        ("Sigmoid", "node_relu_1", "relu_1", "act2")
    assert first["source"].endswith("net.py:15")  # the user's line, not torch's
    assert first["rerun"]["verdict"] == "introduces" and first["rerun"]["nodes"] == ["node_relu_1"]
    assert first["errors"]["runtime_error"] > 1000 * first["errors"]["allowed"]
    after = found["next_departing"]
    assert (after["op_type"], after["rerun"]["verdict"]) == ("ReduceMean", "carries")
    assert found["coverage"]["aligned"] == found["coverage"]["reference_values"] == 6
    assert found["coverage"]["left_out"] == []
    assert [level["level"] for level in found["levels"]] == ["ORT_ENABLE_ALL", "ORT_DISABLE_ALL"]
    assert found["levels"][0]["fused"] == ["conv2d", "conv2d_1"]  # Conv+Relu fused at ENABLE_ALL: said, not skipped
    assert all(level["first_departing"] == "relu_1" for level in found["levels"])


def test_the_summary_line_names_the_node_and_how_to_replay_its_repro(localised):
    done, _, _ = localised
    text = done.stdout
    assert "cause: ONNX Runtime first departs from PyTorch at Sigmoid node 'node_relu_1' (value relu_1, module act2" \
        in text
    assert "nnx-conformance execute cnn-sigmoid/repro/report.json cnn-sigmoid/repro/artifacts" in text
    _, _, folder = localised
    markdown, junit = (folder / "r.md").read_text(), (folder / "r.xml").read_text()
    assert "first departs from PyTorch at Sigmoid node 'node\\_relu\\_1'" in markdown
    assert "first departs from PyTorch at Sigmoid node &apos;node_relu_1&apos;" in junit or \
        "first departs from PyTorch at Sigmoid node 'node_relu_1'" in junit


def test_a_moved_bias_is_introduced_at_its_add_and_only_carried_after_it(localised):
    _, records, _ = localised
    found = localisation_of(records["block-add"])
    first = found["first_departing"]
    assert (first["op_type"], first["value"], first["module"]) == ("Add", "linear_2", "layer.linear1")
    assert first["rerun"]["verdict"] == "introduces"
    assert "node_linear_2" in first["rerun"]["nodes"]
    assert found["next_departing"]["rerun"]["verdict"] == "carries"


def test_floor_division_truncated_by_the_torchscript_exporter_departs_in_the_submodule_that_floors(localised):
    done, records, _ = localised
    assert records["floor-dynamo"]["status"] == "passed"
    assert "localisation" not in records["floor-dynamo"]["stages"]["parity"]["detail"]  # passed: not localised
    found = localisation_of(records["floor-torchscript"])
    assert found["coverage"]["granularity"] == "module"
    assert "per submodule" in found["coverage"]["note"]
    first = found["first_departing"]
    assert first["module"] == "bucket" and first["node"].startswith("/bucket/")
    assert first["rerun"]["verdict"] == "introduces"
    assert first["errors"]["runtime_error"] >= 1.0  # a whole bucket off: truncation, not rounding


def test_the_repro_is_a_record_that_execute_replays_and_that_still_departs(localised):
    _, records, folder = localised
    record = records["cnn-sigmoid"]
    listed = [f["path"] for f in record["artifacts"]["files"] if f["role"] == "repro"]
    assert {"repro/model.onnx", "repro/test_data_set_0/input_0.pb", "repro/test_data_set_0/output_0.pb",
            "repro/runtime_data_set_0/output_0.pb", "repro/report.json"} <= set(listed)
    root = folder / "report-artifacts"
    assert run_cli("verify", folder / "report.json", root).returncode == 0
    repro = root / "cnn-sigmoid" / "repro"
    replayed = run_cli("execute", repro / "report.json", repro / "artifacts")
    assert replayed.returncode == 16, replayed.stdout + replayed.stderr
    assert "cnn-sigmoid-repro: failed (mismatch)" in replayed.stdout
    assert "importing" not in replayed.stderr  # stored outputs: no module, no Python
    profile = json.loads((repro / "profile.json").read_text())[0]
    assert (profile["onnx"], profile["data"], profile["rtol"]) == ("model.onnx", ".", 0)


def test_execute_localize_localises_a_passing_record_and_writes_its_repro_beside_the_output(localised, tmp_path):
    _, _, folder = localised
    out = tmp_path / "again.json"
    done = run_cli("execute", folder / "report.json", folder / "report-artifacts", "--localize", "--output", out)
    assert done.returncode == 16, done.stdout + done.stderr
    records = {r["profile"]: r for r in json.loads(out.read_text())["profiles"]}
    assert localisation_of(records["floor-dynamo"])["status"] == "no-departure"
    assert localisation_of(records["cnn-sigmoid"])["first_departing"]["node"] == "node_relu_1"
    assert (tmp_path / "again-repro" / "cnn-sigmoid" / "report.json").is_file()
    assert run_cli("verify", folder / "report.json", folder / "report-artifacts").returncode == 0  # untouched


def test_execute_localize_refuses_another_reference(localised):
    _, _, folder = localised
    done = run_cli("execute", folder / "report.json", folder / "report-artifacts", "--localize",
                   "--reference", "stored")
    assert done.returncode == 2
    assert "--localize compares ONNX Runtime with PyTorch's intermediate values" in done.stderr


def test_a_memory_bound_below_the_sum_of_the_intermediates_still_localises(tmp_path):
    require_runtime()
    export_edited(tmp_path / "wide", CNN, "make_wide", "2,3,64,64", "sigmoid")
    profiles = write_profiles(tmp_path / "profiles.json",
                              [edited_profile(tmp_path / "wide", "wide", "make_wide", {"batch": [2]})])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json", "--localize-memory", "1")
    assert done.returncode == 16, done.stdout + done.stderr
    found = localisation_of(json.loads((tmp_path / "report.json").read_text())["profiles"][0])
    assert found["first_departing"]["node"] == "node_relu_1"
    unoptimised = found["levels"][1]
    assert unoptimised["level"] == "ORT_DISABLE_ALL"
    assert unoptimised["groups"] >= 2 and unoptimised["largest_group_bytes"] <= 1 << 20
    assert unoptimised["values_compared"] >= 4  # the four 512 KiB maps alone are 2 MiB, twice the bound
    assert found["limits"]["memory_bytes"] == 1 << 20


def test_a_time_cap_reached_before_any_value_is_compared_leaves_it_not_localised_and_says_how_to_raise_it(
        localised, tmp_path):
    _, _, folder = localised
    profiles = write_profiles(tmp_path / "profiles.json",
                              [edited_profile(folder / "cnn", "cnn-sigmoid", "make", {"batch": [2]})])
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "report.json", "--localize-seconds", "1")
    assert done.returncode == 16, done.stdout + done.stderr
    found = localisation_of(json.loads((tmp_path / "report.json").read_text())["profiles"][0])
    assert found["pytorch_seconds"] > 1  # the export again alone outlasts the cap: no group starts after it
    assert found["status"] == "not-localised" and found["first_departing"] is None
    assert found["why"].startswith("the time cap was reached after 0 of ")
    assert "(the time cap is 1 s): raise it with --localize-seconds" in found["why"]
    assert all(level["stopped"] and level["values_compared"] == 0 for level in found["levels"])
    assert found["limits"]["time_cap_seconds"] == 1


def run_conv_bn(folder, atol):
    profiles = write_profiles(folder / f"profiles-{atol}.json", [
        {"name": "conv-bn", "module": f"{folder / 'conv_bn.py'}:make", "exporter": "dynamo",
         "inputs": [{"name": "x", "shape": ["batch", 3, 16, 16]}], "dims": {"batch": [2]}, "rtol": 0, "atol": atol}])
    out = folder / f"report-{atol}.json"
    done = run_cli("run", "--profile-file", profiles, "--output", out, "--force")
    assert done.returncode == 16, done.stdout + done.stderr
    return done, json.loads(out.read_text())["profiles"][0]


def test_an_optimisation_that_breaks_a_tight_tolerance_is_said_to_disappear_without_it(tmp_path):
    require_runtime()
    (tmp_path / "conv_bn.py").write_text(CONV_BN)
    _, tightest = run_conv_bn(tmp_path, 1.2e-38)  # every level fails: their errors measured
    optimised, unoptimised = (level["outputs_max_abs_error"] for level in localisation_of(tightest)["levels"])
    assert optimised > unoptimised > 0  # folding each BatchNorm into its Conv moves the outputs further
    done, record = run_conv_bn(tmp_path, (optimised * unoptimised) ** 0.5)  # between the two
    levels = localisation_of(record)["levels"]
    assert [(level["level"], level["outputs_within_tolerance"]) for level in levels] == \
        [("ORT_ENABLE_ALL", False), ("ORT_DISABLE_ALL", True)]
    assert "the divergence disappears without optimisation" in localisation_of(record)["summary"]
    assert "the divergence disappears without optimisation" in done.stdout


def test_the_page_shows_the_path_through_the_graph_with_the_first_departing_node_marked(localised):
    _, _, folder = localised
    with HeadlessChromium() as page:
        page.open_page(folder / "r.html")
        facts = page.evaluate("""(() => {
          const section = document.querySelector('section.profile[data-profile="cnn-sigmoid"]');
          const path = section.querySelector('ol.path');
          return {
            summary: section.querySelector('p.localisation').textContent,
            level: path.dataset.level,
            steps: [...path.querySelectorAll('li')].map(li => li.textContent),
            first: path.querySelector('li.first-departing').textContent,
            carried: [...path.querySelectorAll('li.departs')].map(li => li.textContent),
            levels: [...section.querySelectorAll('table.levels tbody tr')].map(r => r.cells[0].textContent),
            coverage: section.querySelector('p.coverage').textContent};
        })()""")
    assert facts["summary"].startswith("ONNX Runtime first departs from PyTorch at Sigmoid node 'node_relu_1'")
    assert facts["level"] == "ORT_ENABLE_ALL"
    assert facts["first"].startswith("Sigmoid relu_1") and "first departing node" in facts["first"]
    assert [step.split(" ")[0] for step in facts["steps"]] == ["Relu", "Sigmoid", "ReduceMean", "Gemm"]
    assert any(step.startswith("ReduceMean mean") for step in facts["carried"])
    assert facts["levels"] == ["ORT_ENABLE_ALL", "ORT_DISABLE_ALL"]
    assert facts["coverage"].startswith("coverage: 6 of 6 values from PyTorch aligned")
