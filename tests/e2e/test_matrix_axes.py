"""The runtime matrix's settings axes (doc/runtime-matrix.md, "Axes"; issue "Every way it is run"): beside the
release, `--optimization-level`, `--intra-op-threads` and `--provider` are repeatable axes whose product every
release runs; a cell with the brief's settings is the cell a matrix without axes runs, any other is named by its
release and settings, says them in full and its records say them too; drift sets every such cell against its
release's cell with the brief's settings (`drift.axes`); a provider the release lacks is that cell's
load-error; a tested profile's records in a cell of other settings are §11's kind "built-in"; shards of an axes matrix
merge into the whole; rejudge finds each cell's kept outputs. Real ONNX Runtime releases, a real ONNX file of
two 3x3 convolutions (whose outputs ONNX Runtime's NCHWc layout at ORT_ENABLE_ALL changes) and its data set."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from conftest import BUILD, run_cli
from support import without_seconds

RELEASE = "1.30.0"


def conv_profile(folder, rtol, atol):
    """Two 3x3 convolutions over 16 channels of 32x32 (seeded weights), one data set whose output is ONNX's
    reference evaluator's: a profile of the ONNX-file kind judged by rtol and atol."""
    rng = np.random.default_rng(0)
    channels = 16
    weights = [numpy_helper.from_array(rng.standard_normal((channels, channels, 3, 3)).astype(np.float32) * 0.2, "w1"),
               numpy_helper.from_array(rng.standard_normal(channels).astype(np.float32), "b1"),
               numpy_helper.from_array(rng.standard_normal((channels, channels, 3, 3)).astype(np.float32) * 0.2, "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "convs", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.save(model, folder / "model.onnx")
    x = rng.standard_normal((1, channels, 32, 32)).astype(np.float32)
    (data / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (data / "output_0.pb").write_bytes(
        numpy_helper.from_array(ReferenceEvaluator(model).run(None, {"x": x})[0], "y").SerializeToString())
    return {"name": "convs", "onnx": str(folder / "model.onnx"), "data": str(folder), "rtol": rtol, "atol": atol}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("axes")
    (folder / "p.json").write_text(json.dumps([conv_profile(folder / "model", 1e-4, 1e-5)]))
    done = run_cli("run", "--profile-file", folder / "p.json", "--output", folder / "r.json", "--no-localize")
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


AXES = ("--optimization-level", "ORT_DISABLE_ALL", "--optimization-level", "ORT_ENABLE_ALL",
        "--intra-op-threads", "1", "--intra-op-threads", "2")


def matrix(folder, name, *flags, code=0):
    done = run_cli("matrix", folder / "r.json", folder / "r-artifacts", "--output", folder / name, *flags)
    assert done.returncode == code, done.stdout + done.stderr
    return done, json.loads((folder / name).read_text()) if code != 2 else None


@pytest.fixture(scope="module")
def whole(report):
    return matrix(report, "m.json", "--onnxruntime-version", RELEASE, "--jobs", "2", *AXES)


def test_a_matrix_runs_the_product_of_its_axes_and_each_cell_says_its_settings(report, whole):
    done, document = whole
    cells = [(r["version"], r.get("settings")) for r in document["runtimes"]]
    assert len(cells) == 4
    brief = [r for r in document["runtimes"] if "settings" not in r]
    assert len(brief) == 1  # the cell a matrix without axes runs: no settings key, its record the brief's session
    assert brief[0]["records"][0]["runtime"]["session"] == {"graph_optimization_level": "ORT_ENABLE_ALL",
                                                            "inter_op_num_threads": 1, "intra_op_num_threads": 1}
    for runtime in document["runtimes"]:
        record = runtime["records"][0]
        settings = runtime.get("settings")
        if settings:
            assert record["runtime"]["session"] == {k: settings[k] for k in settings if k != "provider"}
            assert record["runtime"]["provider"] == settings["provider"] == "CPUExecutionProvider"
        threads = record["runtime"]["session"]["intra_op_num_threads"]
        deterministic = record["stages"]["parity"]["detail"].get("deterministic")
        assert (deterministic is not None) == (threads == 2)
        if deterministic:
            assert deterministic["runs"] == 2 and deterministic["identical"] is True
    levels = [r["records"][0]["runtime"]["session"]["graph_optimization_level"] for r in document["runtimes"]]
    assert levels == ["ORT_DISABLE_ALL", "ORT_DISABLE_ALL", "ORT_ENABLE_ALL", "ORT_ENABLE_ALL"]  # the document's order
    assert f"onnxruntime {RELEASE} (ORT_DISABLE_ALL, 2 threads)  convs: passed" in done.stdout
    assert run_cli("validate", report / "m.json").returncode == 0


def test_drift_per_axis_says_which_setting_moves_the_outputs_and_by_how_many_ulps(whole):
    done, document = whole
    axes = {a["version"]: a for a in document["drift"]["axes"]}
    assert set(axes) == {f"{RELEASE} (ORT_DISABLE_ALL)", f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)", f"{RELEASE} (2 threads)"}
    for entry in axes.values():
        assert entry["against"] == RELEASE and entry["profile"] == "convs" and entry["cases_compared"] == 1
        assert entry["within_tolerance"] is True
        assert entry["tolerance"] == {"rtol": 1e-4, "atol": 1e-5}  # the profile's own judged every axis
    assert axes[f"{RELEASE} (ORT_DISABLE_ALL)"]["max_ulps"] > 100  # the NCHWc layout of ENABLE_ALL moves them
    assert axes[f"{RELEASE} (2 threads)"]["max_ulps"] == 0
    assert document["drift"]["cases"][0]["newest"] == RELEASE  # the reference cell: the brief's settings
    assert f"axis {RELEASE} (ORT_DISABLE_ALL) against {RELEASE} on convs: largest |difference|" in done.stdout
    assert f"axis {RELEASE} (2 threads) against {RELEASE} on convs: bit-identical, within the tolerance" in done.stdout


def test_an_edited_setting_makes_the_matrix_invalid(report, whole, tmp_path):
    _, document = whole
    edited = json.loads(json.dumps(document))
    edited["runtimes"][0]["settings"]["graph_optimization_level"] = "ORT_LEVEL_NINE"
    (tmp_path / "e.json").write_text(json.dumps(edited))
    done = run_cli("validate", tmp_path / "e.json")
    assert done.returncode != 0 and "graph_optimization_level" in done.stdout + done.stderr


def test_a_cell_beyond_the_tolerance_of_the_reference_cell_is_named_with_its_settings(report, tmp_path):
    (tmp_path / "p.json").write_text(json.dumps([conv_profile(tmp_path / "model", 0.0, 1e-6)]))
    run_cli("run", "--profile-file", tmp_path / "p.json", "--output", tmp_path / "r.json", "--no-localize")
    done, document = matrix(tmp_path, "m.json", "--onnxruntime-version", RELEASE, "--optimization-level",
                            "ORT_DISABLE_ALL", "--optimization-level", "ORT_ENABLE_ALL", code=16)
    beyond = document["drift"]["beyond_tolerance"]
    assert [(b["version"], b["newest"]) for b in beyond] == [(f"{RELEASE} (ORT_DISABLE_ALL)", RELEASE)]
    assert f"drift: {RELEASE} (ORT_DISABLE_ALL) differs from {RELEASE} beyond the tolerance of convs" in done.stdout
    parting = document["partings"][0]
    assert parting["version"] == f"{RELEASE} (ORT_DISABLE_ALL)" and parting["newest"] == RELEASE
    assert parting["localisation"]["status"] in {"departs", "no-departure"}, parting["localisation"]


def test_a_provider_the_release_lacks_is_that_cells_load_error_naming_it(report):
    done, document = matrix(report, "p.json", "--onnxruntime-version", RELEASE, "--provider", "CPUExecutionProvider",
                            "--provider", "NoSuchExecutionProvider", code=15)
    lacking = [r for r in document["runtimes"] if r.get("settings", {}).get("provider") == "NoSuchExecutionProvider"]
    assert len(lacking) == 1 and lacking[0]["status"] == "failed"
    load = lacking[0]["records"][0]["stages"]["load"]
    assert load["failure"] == "load-error"
    assert "provider NoSuchExecutionProvider is not available in ONNX Runtime 1.30.0" in load["detail"]["error"]
    assert lacking[0]["records"][0]["runtime"]["provider"] == "NoSuchExecutionProvider"
    assert f"onnxruntime {RELEASE} (NoSuchExecutionProvider)  convs: failed (load-error)" in done.stdout
    assert (f"onnxruntime {RELEASE} (NoSuchExecutionProvider)    cause: ONNX Runtime would not create the session: "
            f"provider NoSuchExecutionProvider is not available in ONNX Runtime {RELEASE}") in done.stdout
    assert "hint: this release has no such execution provider: name a release that has it" in done.stdout
    assert run_cli("validate", report / "p.json").returncode == 0


def test_an_axis_value_named_twice_is_refused_before_any_cell_starts(both_profiles, tmp_path):
    _, _, root = both_profiles
    named_twice = run_cli("matrix", root.parent / "report.json", root, "--output", tmp_path / "m.json",
                          "--onnxruntime-version", RELEASE, "--intra-op-threads", "1", "--intra-op-threads", "1")
    assert named_twice.returncode == 2 and "--intra-op-threads 1 is named twice" in named_twice.stderr


def test_shards_of_an_axes_matrix_merge_into_the_whole_and_rejudge_finds_each_cells_outputs(report, whole, tmp_path):
    _, document = whole
    for k in (0, 1):
        matrix(report, f"s{k}.json", "--onnxruntime-version", RELEASE, *AXES, "--shard", f"{k}/2")
    merged = run_cli("matrix-merge", tmp_path / "merged.json", report / "s0.json", report / "s1.json")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert without_seconds(json.loads((tmp_path / "merged.json").read_text())) == without_seconds(document)
    strict = run_cli("rejudge", tmp_path / "merged.json", "--rtol", "0", "--atol", "0", "--output", tmp_path / "z.json")
    assert strict.returncode == 16, strict.stdout + strict.stderr
    rejudged = json.loads((tmp_path / "z.json").read_text())
    named = {r["runtime"] for r in rejudged["records"]}
    assert f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)" in named and RELEASE in named
    own = run_cli("rejudge", report / "m.json", "--output", tmp_path / "own.json")
    assert own.returncode == 0 and "rejudge: 0 verdict(s) change" in own.stdout


def test_python_runtime_matrix_takes_the_same_axes(report, whole, tmp_path):
    code = ("import json, sys\nfrom nnx.export_conformance import runtime_matrix\n"
            "m = runtime_matrix(sys.argv[1], sys.argv[2], runtimes=[sys.argv[3]], jobs=2,\n"
            "                   optimization_levels=['ORT_DISABLE_ALL', 'ORT_ENABLE_ALL'], intra_op_threads=[1, 2])\n"
            "print(json.dumps(m))\n")
    done = subprocess.run([sys.executable, "-c", code, str(report / "r.json"), str(report / "r-artifacts"), RELEASE],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(BUILD / "python")},
                          timeout=600)
    assert done.returncode == 0, done.stderr
    from_python = json.loads(done.stdout)
    from_python["report"]["path"] = whole[1]["report"]["path"]
    assert without_seconds(from_python) == without_seconds(whole[1])


def test_the_openvino_provider_of_its_release_runs_the_model_and_a_release_without_it_names_it(report):
    done, document = matrix(report, "ov.json", "--onnxruntime-version", "1.24.1", "--onnxruntime-version", RELEASE,
                            "--provider", "CPUExecutionProvider", "--provider", "OpenVINOExecutionProvider", code=15)
    cells = {(r["version"], r.get("settings", {}).get("provider", "CPUExecutionProvider")): r for r in document["runtimes"]}
    openvino = cells[("1.24.1", "OpenVINOExecutionProvider")]["records"][0]
    assert openvino["status"] == "passed" and openvino["level"] == "executed"
    assert openvino["stages"]["load"]["detail"]["providers"] == ["OpenVINOExecutionProvider", "CPUExecutionProvider"]
    missing = cells[(RELEASE, "OpenVINOExecutionProvider")]["records"][0]["stages"]["load"]
    assert missing["failure"] == "load-error"
    assert f"provider OpenVINOExecutionProvider is not available in ONNX Runtime {RELEASE}" in missing["detail"]["error"]
    axes = {a["version"]: a for a in document["drift"]["axes"]}
    assert axes["1.24.1 (OpenVINOExecutionProvider)"]["against"] == "1.24.1"
    assert axes["1.24.1 (OpenVINOExecutionProvider)"]["within_tolerance"] is True


def test_every_cell_records_the_environment_variables_that_change_numbers(report, tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "3", "MKL_CBWR": "COMPATIBLE"}
    done = run_cli("matrix", report / "r.json", report / "r-artifacts", "--output", tmp_path / "m.json",
                   "--onnxruntime-version", RELEASE, "--intra-op-threads", "2", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    for runtime in json.loads((tmp_path / "m.json").read_text())["runtimes"]:
        assert runtime["host"]["environment"] == {"MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "3"}
    executed = run_cli("execute", report / "r.json", report / "r-artifacts", "--output", tmp_path / "e.json", env=env)
    assert executed.returncode == 0, executed.stdout + executed.stderr
    record = json.loads((tmp_path / "e.json").read_text())["profiles"][0]
    assert record["versions"]["host"]["environment"] == {"MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "3"}


def test_the_pages_show_the_axes_as_a_table_with_their_drift(report, whole, tmp_path):
    from headless_chromium import HeadlessChromium
    done = run_cli("report", report / "m.json", "--html", tmp_path / "m.html", "--markdown", tmp_path / "m.md")
    assert done.returncode == 0, done.stdout + done.stderr
    axes = {a["version"]: a for a in whole[1]["drift"]["axes"]}
    with HeadlessChromium() as page:
        page.open_page(tmp_path / "m.html")
        rows = page.evaluate("[...document.querySelectorAll('table.axes tbody tr')]"
                             ".map(r => [...r.cells].map(c => c.textContent))")
        headers = page.evaluate("[...document.querySelectorAll('table.heat thead th')].map(h => h.textContent)")
        assert page.console_errors() == [] and page.requests() == [page.url]
    assert {row[0] for row in rows} == set(axes)
    for row in rows:
        assert row[1] == RELEASE and row[2] == "convs" and row[4] == str(axes[row[0]]["max_ulps"]) and row[6] == "yes"
    assert any(h.startswith(f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)") for h in headers)  # a column per cell
    markdown = (tmp_path / "m.md").read_text()
    assert "**Axes**" in markdown and "| 1.30.0 (ORT\\_DISABLE\\_ALL) | 1.30.0 | `convs` |" in markdown
