"""The real runtime matrix of the slower lane (issue "Every way it is run", "Done when"; doc/runtime-matrix.md,
"Axes"): one report holding both tested profiles' records and two module profiles' (tests/slow/module_profiles.json:
torchvision's ResNet-18 and a 2-layer nn.TransformerEncoder of tests/models/zoo.py, both real dynamo exports), its
artifacts under one root, run as ONE matrix over the five optimisation levels × 1 and 2 intra-op threads ×
CPUExecutionProvider and OpenVINOExecutionProvider × ONNX Runtime 1.24.1 (the onnxruntime-openvino release) and
1.32.0 (which has no OpenVINO provider), two cells at once. Checked: the document is valid and holds the product
of the axes; a tested profile's record is nnx.export-conformance/1 in the brief's cell and the successor format's
kind built-in in every other; drift.axes has an entry, with its tolerance, per cell of other settings and profile
it computed; every cell that cannot run is named with its reason; OpenVINO runs ResNet-18 to `executed`; the
summary prints every axis line. The wall time and the cell count are printed (pytest -s: scripts/slow_lane.sh)."""
import itertools
import json
import time
from pathlib import Path

import pytest

from conftest import run_cli

MODULE_PROFILES = Path(__file__).resolve().parent / "module_profiles.json"
TESTED = ("feedfwd-fp32-torchscript", "feedfwd-fp32-dynamo")
MODULES = ("resnet18-dynamo", "transformer-encoder-dynamo")
LEVELS = ("ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_LAYOUT", "ORT_ENABLE_ALL")
THREADS = (1, 2)
CPU, OPENVINO = "CPUExecutionProvider", "OpenVINOExecutionProvider"
PROVIDERS = (CPU, OPENVINO)
OPENVINO_RELEASE, NEWER_RELEASE = "1.24.1", "1.32.0"  # 1.32.0: CPUExecutionProvider only
RELEASES = (OPENVINO_RELEASE, NEWER_RELEASE)


def flags(name, values):
    return [part for value in values for part in (name, str(value))]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Both tested profiles (`run`) and the two module profiles (`run --profile-file`), their artifacts under one
    root, the two reports' records in one report."""
    folder = tmp_path_factory.mktemp("real-matrix")
    root = folder / "artifacts"
    runs = [("tested.json",), ("modules.json", "--profile-file", MODULE_PROFILES)]
    records = []
    for name, *more in runs:
        done = run_cli("run", *more, "--output", folder / name, "--artifacts", root, "--quiet")
        assert done.returncode == 0, done.stdout + done.stderr
        records += json.loads((folder / name).read_text())["profiles"]
    document = {"format": "nnx.export-conformance/1", "status": "passed", "profiles": records}
    (folder / "report.json").write_text(json.dumps(document, indent=2))
    return folder


@pytest.fixture(scope="module")
def real_matrix(report):
    axes = [*flags("--optimization-level", LEVELS), *flags("--intra-op-threads", THREADS),
            *flags("--provider", PROVIDERS), *flags("--onnxruntime-version", RELEASES)]
    started = time.monotonic()
    done = run_cli("matrix", report / "report.json", report / "artifacts", "--output", report / "m.json",
                   "--jobs", "2", *axes, timeout=3600)
    seconds = time.monotonic() - started
    document = json.loads((report / "m.json").read_text())
    print(f"\nslow lane: the real matrix ran {len(document['runtimes'])} cells ({len(LEVELS)} levels × {len(THREADS)} "
          f"thread counts × {len(PROVIDERS)} providers × {len(RELEASES)} releases) of {len(TESTED) + len(MODULES)} "
          f"profiles with --jobs 2 in {seconds:.1f} s (exit code {done.returncode})")
    return done, document


def cell_of(runtime):
    """(release, level, threads, provider) of a cell: its settings, or the brief's when it has none."""
    settings = runtime.get("settings", {"graph_optimization_level": "ORT_ENABLE_ALL", "intra_op_num_threads": 1,
                                        "provider": CPU})
    return (runtime["version"], settings["graph_optimization_level"], settings["intra_op_num_threads"],
            settings["provider"])


def cannot_run(runtime):
    """The cells the releases cannot run here: 1.32.0 has no OpenVINO provider (every level, both thread counts).
    ORT_ENABLE_LAYOUT is not among them: both releases have level 3 (measured; 1.18 refused it)."""
    release, _, _, provider = cell_of(runtime)
    return release == NEWER_RELEASE and provider == OPENVINO


def test_the_report_holds_both_tested_profiles_and_two_module_profiles_and_validates(report):
    records = json.loads((report / "report.json").read_text())["profiles"]
    assert [(r["profile"], r["format"], r["status"]) for r in records] == [
        *((p, "nnx.export-conformance/1", "passed") for p in TESTED),
        *((p, "nnx.module-conformance/1", "passed") for p in MODULES)]
    done = run_cli("validate", report / "report.json")
    assert done.returncode == 0 and "valid (4 record(s))" in done.stdout, done.stdout + done.stderr
    assert run_cli("verify", report / "report.json", report / "artifacts").returncode == 0


def test_the_real_matrix_is_valid_and_holds_every_cell_of_the_product_of_its_axes(report, real_matrix):
    done, document = real_matrix
    validated = run_cli("validate", report / "m.json")
    assert validated.returncode == 0 and "valid" in validated.stdout, validated.stdout + validated.stderr
    cells = [cell_of(r) for r in document["runtimes"]]
    assert len(cells) == len(LEVELS) * len(THREADS) * len(PROVIDERS) * len(RELEASES) == 40
    assert sorted(cells) == sorted(itertools.product(RELEASES, LEVELS, THREADS, PROVIDERS))
    assert [r["version"] for r in document["runtimes"] if "settings" not in r] == list(RELEASES)  # a brief cell each
    for runtime in document["runtimes"]:
        assert [r["profile"] for r in runtime["records"]] == [*TESTED, *MODULES]
        assert runtime["status"] == ("failed" if cannot_run(runtime) else "passed"), runtime.get("cell")
    assert done.returncode == 15  # the first failing record's class: load-error (1.32.0 has no OpenVINO provider)


def test_a_tested_profiles_record_is_v1_in_the_brief_cell_and_built_in_in_every_other(real_matrix):
    _, document = real_matrix
    for runtime in document["runtimes"]:
        release, level, threads, provider = cell_of(runtime)
        for record in runtime["records"]:
            if "settings" not in runtime and record["profile"] in TESTED:
                assert record["format"] == "nnx.export-conformance/1" and "model" not in record
                continue
            expected = "nnx.model-conformance/1" if record["profile"] in TESTED else "nnx.module-conformance/1"
            assert record["format"] == expected, (runtime.get("cell"), record["profile"])
            if record["profile"] in TESTED:
                assert record["model"]["kind"] == "built-in"
            assert record["runtime"]["session"] == {"graph_optimization_level": level, "inter_op_num_threads": 1,
                                                    "intra_op_num_threads": threads}
            assert record["runtime"]["provider"] == provider


def test_drift_per_axis_has_an_entry_per_cell_of_other_settings_and_profile_naming_its_tolerance(report, real_matrix):
    _, document = real_matrix
    tolerances = {r["profile"]: r["tolerances"] for r in json.loads((report / "report.json").read_text())["profiles"]}
    brief = {r["version"]: r for r in document["runtimes"] if "settings" not in r}
    expected = {(r["cell"], p) for r in document["runtimes"] if "settings" in r and not cannot_run(r)
                for p in (*TESTED, *MODULES)}
    axes = {(a["version"], a["profile"]): a for a in document["drift"]["axes"]}
    assert set(axes) == expected and len(axes) == len(document["drift"]["axes"]) == (19 + 9) * 4
    for (cell, profile), entry in axes.items():
        release = cell.split(" ")[0]
        assert entry["against"] == release
        assert entry["cases_compared"] == len(brief[release]["outputs"][profile])
        assert entry["tolerance"] == {"rtol": tolerances[profile]["rtol"], "atol": tolerances[profile]["atol"]}
        assert entry["within_tolerance"] is True, entry  # measured: no setting leaves a profile's tolerance


def test_which_setting_moves_which_profiles_outputs(real_matrix):
    """What this matrix found (doc/building-and-testing.md, "The slower lane"): the feed-forward networks compute
    the same bits under every setting; a second thread moves nothing; below ENABLE_EXTENDED (ResNet-18: below
    ENABLE_LAYOUT) the outputs move, and the OpenVINO provider moves both module profiles' at every level."""
    _, document = real_matrix
    ulps = {(a["version"], a["profile"]): a["max_ulps"] for a in document["drift"]["axes"]}
    settings = {r["cell"]: cell_of(r) for r in document["runtimes"] if "cell" in r}
    for profile in TESTED:
        assert {u for (_, p), u in ulps.items() if p == profile} == {0}
    for (cell, profile), moved in ulps.items():
        release, level, threads, provider = settings[cell]
        if threads == 2:  # the same as the cell's one-thread twin (the brief cell's twin: bit-identical)
            twin = [c for c, s in settings.items() if s == (release, level, 1, provider)]
            assert moved == (ulps[(twin[0], profile)] if twin else 0), (cell, profile)
        if profile in MODULES and provider == OPENVINO:
            assert moved > 0, (cell, profile)
        elif profile in MODULES:
            lowest_still_exact = "ORT_ENABLE_LAYOUT" if profile == "resnet18-dynamo" else "ORT_ENABLE_EXTENDED"
            assert (moved == 0) == (LEVELS.index(level) >= LEVELS.index(lowest_still_exact)), (cell, profile, moved)


def test_each_cell_that_cannot_run_is_named_with_its_reason(real_matrix):
    done, document = real_matrix
    lacking = [r for r in document["runtimes"] if cannot_run(r)]
    assert len(lacking) == len(LEVELS) * len(THREADS)
    for runtime in lacking:
        assert not any(runtime["outputs"].values()), runtime["cell"]
        for record in runtime["records"]:
            load = record["stages"]["load"]
            assert record["status"] == "failed" and record["failure"] == load["failure"] == "load-error"
            assert load["detail"]["provider"] == OPENVINO
            assert load["detail"]["error"] == (f"provider {OPENVINO} is not available in ONNX Runtime {NEWER_RELEASE}"
                                               f" (available: {CPU})")
            assert record["stages"]["parity"]["status"] != "passed"
            assert f"onnxruntime {runtime['cell']}  {record['profile']}: failed (load-error)" in done.stdout
    layout = [r for r in document["runtimes"] if cell_of(r)[1] == "ORT_ENABLE_LAYOUT" and not cannot_run(r)]
    assert len(layout) == 6 and all(rec["level"] == "executed" for r in layout for rec in r["records"])


def test_the_openvino_cells_of_its_release_run_resnet18_to_executed(real_matrix):
    _, document = real_matrix
    openvino = [r for r in document["runtimes"] if cell_of(r)[0] == OPENVINO_RELEASE and cell_of(r)[3] == OPENVINO]
    assert len(openvino) == len(LEVELS) * len(THREADS)
    for runtime in openvino:
        records = {r["profile"]: r for r in runtime["records"]}
        resnet = records["resnet18-dynamo"]
        assert resnet["status"] == "passed" and resnet["level"] == "executed", runtime["cell"]
        assert resnet["stages"]["load"]["detail"]["providers"] == [OPENVINO, CPU]
        assert all(r["level"] == "executed" for r in records.values())  # and the other three profiles


def test_the_two_thread_cells_say_their_two_runs_gave_the_same_bytes(real_matrix):
    _, document = real_matrix
    ran = [r for r in document["runtimes"] if cell_of(r)[2] == 2 and not cannot_run(r)]
    assert len(ran) == 15
    for runtime in ran:
        for record in runtime["records"]:
            deterministic = record["stages"]["parity"]["detail"]["deterministic"]
            assert deterministic["runs"] == 2 and deterministic["identical"] is True, (runtime["cell"], deterministic)


def axis_line(entry):
    """The summary's line for one drift.axes entry (src/matrix/drift.cc drift_summary_lines)."""
    ulps = entry["max_ulps"]
    how = ("bit-identical" if entry["max_abs_difference"] == 0.0 and ulps == 0 else
           f"largest |difference| {entry['max_abs_difference']!r} ({ulps} ulp{'' if ulps == 1 else 's'}, "
           f"case {entry['case']})")
    judged = "within the tolerance" if entry["within_tolerance"] else "BEYOND the tolerance"
    return f"axis {entry['version']} against {entry['against']} on {entry['profile']}: {how}, {judged}"


def test_the_summary_prints_every_axis_line(real_matrix):
    done, document = real_matrix
    printed = [line for line in done.stdout.splitlines() if line.startswith("axis ")]
    assert printed == [axis_line(entry) for entry in document["drift"]["axes"]]
    assert "drift: every runtime is within each profile's tolerance of the newest" in done.stdout
