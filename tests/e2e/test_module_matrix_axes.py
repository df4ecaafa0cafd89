"""A runtime matrix over settings axes of a module profile (doc/runtime-matrix.md, "Axes"; issue "Every way it is
run"): a real torch export of a tiny conv net (tests/models/worker_models.py `conv_bn`: Conv, BatchNorm, ReLU,
mean, Linear) over two optimisation levels × two thread counts on one release. Every cell is valid, its record
is the module format stating the cell's settings, drift.axes sets each cell of other settings against the
release's cell with the brief's settings under the profile's own tolerance, and the 2-thread cells say whether
their two runs agreed. The slower lane (tests/slow/test_real_matrix.py) runs the whole product of the axes."""
import json

import pytest

from conftest import run_cli
from module_support import conv_bn_profile, run_one_profile

RELEASE = "1.30.0"
LEVELS = ("ORT_DISABLE_ALL", "ORT_ENABLE_ALL")
THREADS = (1, 2)


@pytest.fixture(scope="module")
def module_matrix(tmp_path_factory):
    folder = tmp_path_factory.mktemp("module-axes")
    record = run_one_profile(folder, conv_bn_profile())
    axes = [flag for level in LEVELS for flag in ("--optimization-level", level)]
    axes += [flag for threads in THREADS for flag in ("--intra-op-threads", str(threads))]
    done = run_cli("matrix", folder / "out" / "r.json", folder / "out" / "r-artifacts", "--output", folder / "m.json",
                   "--onnxruntime-version", RELEASE, "--jobs", "2", *axes)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder, record, done, json.loads((folder / "m.json").read_text())


def test_every_cell_of_a_module_matrix_is_valid_and_its_record_states_the_cells_settings(module_matrix):
    folder, _, _, document = module_matrix
    validated = run_cli("validate", folder / "m.json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    cells = {}
    for runtime in document["runtimes"]:
        assert runtime["version"] == RELEASE and runtime["status"] == "passed"
        [record] = runtime["records"]
        assert record["format"] == "nnx.module-conformance/1" and record["profile"] == "conv-bn"
        assert record["status"] == "passed" and record["level"] == "executed"
        session = record["runtime"]["session"]
        assert record["runtime"]["provider"] == "CPUExecutionProvider"
        settings = runtime.get("settings")
        if settings is not None:  # a cell of other settings says them, and its record ran with them
            assert session == {k: v for k, v in settings.items() if k != "provider"}
        cells[(session["graph_optimization_level"], session["intra_op_num_threads"])] = runtime.get("cell", RELEASE)
    assert cells == {("ORT_DISABLE_ALL", 1): f"{RELEASE} (ORT_DISABLE_ALL)",
                     ("ORT_DISABLE_ALL", 2): f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)",
                     ("ORT_ENABLE_ALL", 1): RELEASE,  # the brief's settings: the cell a matrix without axes runs
                     ("ORT_ENABLE_ALL", 2): f"{RELEASE} (2 threads)"}
    assert [r for r in document["runtimes"] if "settings" not in r] == [
        r for r in document["runtimes"] if r.get("cell", RELEASE) == RELEASE]


def test_drift_per_axis_of_a_module_profile_names_each_cell_and_the_tolerance_that_judged_it(module_matrix):
    _, record, done, document = module_matrix
    axes = {a["version"]: a for a in document["drift"]["axes"]}
    assert set(axes) == {f"{RELEASE} (ORT_DISABLE_ALL)", f"{RELEASE} (ORT_DISABLE_ALL, 2 threads)",
                         f"{RELEASE} (2 threads)"}
    cases = len([c for c in record["input_cases"] if c["expect"] == "match"])  # those with outputs (the rest: refused)
    for cell, entry in axes.items():
        assert entry["against"] == RELEASE and entry["profile"] == "conv-bn"
        assert entry["cases_compared"] == cases
        assert entry["tolerance"] == {"rtol": record["tolerances"]["rtol"], "atol": record["tolerances"]["atol"]}
        assert entry["within_tolerance"] is True and entry["max_ulps"] >= 0
        how = "bit-identical" if entry["max_ulps"] == 0 else "largest |difference|"
        assert f"axis {cell} against {RELEASE} on conv-bn: {how}" in done.stdout
    assert axes[f"{RELEASE} (2 threads)"]["max_abs_difference"] == 0.0  # threads alone move no output of this net


def test_the_two_thread_cells_of_a_module_matrix_say_whether_their_two_runs_agreed(module_matrix):
    _, _, _, document = module_matrix
    for runtime in document["runtimes"]:
        [record] = runtime["records"]
        detail = record["stages"]["parity"]["detail"]
        if record["runtime"]["session"]["intra_op_num_threads"] == 2:
            assert detail["deterministic"]["runs"] == 2 and detail["deterministic"]["identical"] is True
        else:
            assert "deterministic" not in detail
