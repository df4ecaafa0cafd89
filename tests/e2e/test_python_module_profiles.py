"""Module profiles through the Python API: ModuleProfile, run_profile/run_profiles, execute of a module record,
check_module on an nn.Module object and assert_conformant. Real torch, the real worker, real ONNX Runtime."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, REPO, require_runtime, run_cli

sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(REPO / "tests" / "models"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402

WORKER_MODELS = REPO / "tests" / "models" / "worker_models.py"
ZOO = REPO / "tests" / "models" / "zoo.py"
IMAGE = [{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32"}]


def conv_bn_profile(name="convbn-torchscript", exporter="torchscript", **extra):
    return ec.ModuleProfile(name, exporter, f"{WORKER_MODELS}:conv_bn", IMAGE, {"batch": [2, 1, 3]}, **extra)


def cli_line(problem: str) -> str:
    """The profile file's line for a problem of profile_from_json (profile_file.cc: at_index)."""
    if problem.startswith("profile.") or problem.startswith("profile:"):
        return "profiles[0]" + problem[len("profile"):]
    return "profiles[0]: " + problem


def test_the_json_form_is_the_profile_file_object(tmp_path):
    p = conv_bn_profile(outputs=("logits",))
    assert p.to_json() == {
        "name": "convbn-torchscript", "exporter": "torchscript", "module": f"{WORKER_MODELS}:conv_bn",
        "inputs": IMAGE, "dims": {"batch": [2, 1, 3]}, "outputs": ["logits"], "opset_version": 18,
        "rtol": 1e-4, "atol": 1e-5}
    assert nnx.ModuleProfile is ec.ModuleProfile and "ModuleProfile" in ec.__all__
    (tmp_path / "profiles.json").write_text(json.dumps([p.to_json(), {"name": "ff", "exporter": "torchscript"}]))
    loaded = ec.load_profiles(tmp_path / "profiles.json")
    assert loaded[0] == p and isinstance(loaded[1], ec.Profile)
    assert "torch" in p.requires


@pytest.mark.parametrize("change, words", [
    # absolute: the same file for Python (the current folder) and the profile file (its own folder)
    ({"module": f"{WORKER_MODELS.parent / 'no_such_file.py'}:make"}, "does not exist"),
    ({"inputs": [{"name": "image", "shape": ["batch", 3], "dtype": "complex64"}]}, "complex64"),
])
def test_a_bad_module_profile_is_the_profile_files_usage_error(tmp_path, change, words):
    fields = {**conv_bn_profile().to_json(), **change}
    with pytest.raises(ec.UsageError) as raised:
        ec.ModuleProfile.from_json(fields)
    assert any(words in problem for problem in raised.value.problems), raised.value.problems
    with pytest.raises(ec.UsageError) as by_run:  # the same reader when a plain dict is run
        ec.run_profile(fields, tmp_path / "root")
    assert by_run.value.problems == raised.value.problems
    assert not (tmp_path / "root").exists()
    (tmp_path / "profiles.json").write_text(json.dumps([fields]))
    done = run_cli("run", "--output", tmp_path / "out" / "report.json", "--profile-file", tmp_path / "profiles.json")
    assert done.returncode == 2, done.stdout + done.stderr
    for problem in raised.value.problems:
        assert cli_line(problem) in done.stderr, (problem, done.stderr)


@pytest.fixture(scope="module")
def conv_bn_run(tmp_path_factory):
    require_runtime()
    root = tmp_path_factory.mktemp("convbn")
    return ec.run_profile(conv_bn_profile(), root), root


def test_a_module_profile_runs_under_torchscript(conv_bn_run):
    record, root = conv_bn_run
    assert record["format"] == "nnx.module-conformance/1" and record["status"] == "passed", record
    assert record["module"]["factory"] == f"{WORKER_MODELS}:conv_bn"
    assert [c["name"] for c in record["input_cases"]][:3] == ["batch-2", "batch-1", "batch-3"]
    ec.verify_artifacts(record, root)


def test_execute_of_a_module_record_needs_no_python(conv_bn_run, tmp_path):
    record, root = conv_bn_run
    (tmp_path / "record.json").write_text(json.dumps(record))
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); import nnx.export_conformance as ec; "
              "record = json.load(open(sys.argv[2])); again = ec.execute(record, sys.argv[3]); "
              "print(json.dumps(again)); assert 'worker_models' not in sys.modules")
    env = {**os.environ, "NNX_PYTHON": "/bin/false"}
    done = subprocess.run([sys.executable, "-c", script, str(BUILD / "python"), str(tmp_path / "record.json"),
                           str(root)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    again = json.loads(done.stdout)
    assert again["status"] == "passed", again
    for before, after in zip(record["input_cases"], again["input_cases"]):
        assert (after["name"], after["outcome"], after["max_abs_error"], after["max_rel_error"]) == \
            (before["name"], before["outcome"], before["max_abs_error"], before["max_rel_error"])


def test_execute_with_the_torch_reference_rebuilds_the_module(conv_bn_run):
    record, root = conv_bn_run
    again = ec.execute(record, root, reference="torch")
    assert again["status"] == "passed", again
    assert again["module"]["state_sha256"] == record["module"]["state_sha256"]


def test_run_profiles_takes_module_and_tested_profiles_together(tmp_path):
    require_runtime()
    two = ec.ModuleProfile("two-torchscript", "torchscript", f"{WORKER_MODELS}:two_in_two_out",
                           [{"name": "x", "shape": ["batch", 4], "dtype": "float32"},
                            {"name": "y", "shape": ["batch", 5], "dtype": "float32"}], {"batch": [2, 3]})
    report = ec.run_profiles(tmp_path, [two, "feedfwd-fp32-torchscript"])
    assert report["status"] == "passed", ec.summary_lines(report)
    assert [(r["profile"], r["format"]) for r in report["profiles"]] == [
        ("two-torchscript", "nnx.module-conformance/1"), ("feedfwd-fp32-torchscript", "nnx.export-conformance/1")]


def test_a_module_profile_runs_under_dynamo(tmp_path):
    require_runtime()
    record = ec.run_profile(conv_bn_profile("convbn-dynamo", "dynamo"), tmp_path)
    assert record["status"] == "passed", ec.summary_lines([record])


def test_check_module_runs_a_module_object(tmp_path):
    require_runtime()
    import torch
    import worker_models

    record = ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name="mine", exporter="torchscript",
                             root=tmp_path, inputs=[{"name": "image", "shape": ["batch", 3, 8, 8]}],
                             dims={"batch": [2, 1, 3]})
    assert record["status"] == "passed", ec.summary_lines([record])
    assert record["inputs"] == [{"name": "image", "shape": ["batch", 3, 8, 8], "dtype": "float32", "range": None}]
    assert record["module"]["class"].endswith("ConvBn")
    folder = tmp_path / ".nnx-modules" / "mine"
    assert sorted(p.name for p in folder.iterdir()) == ["factory.py", "module.pt"]
    ec.verify_artifacts(record, tmp_path)  # the module's folder is beside the profile folder, not in it
    with pytest.raises(ec.FolderInUse):
        ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name="mine", exporter="torchscript",
                        root=tmp_path)


def test_check_module_refuses_a_class_the_worker_cannot_import(tmp_path):
    import torch

    scripted = type("Scripted", (torch.nn.Module,), {"__module__": "__main__", "forward": lambda self, x: x * 2})
    with pytest.raises(ec.UsageError, match="__main__"):
        ec.check_module(scripted(), torch.randn(2, 3), name="m", exporter="torchscript", root=tmp_path)

    class Local(torch.nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(ec.UsageError, match="inside a function"):
        ec.check_module(Local(), torch.randn(2, 3), name="m", exporter="torchscript", root=tmp_path)
    with pytest.raises(ec.UsageError, match="must be image's size 2"):
        import worker_models

        ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name="m", exporter="torchscript",
                        root=tmp_path, inputs=[{"name": "image", "shape": ["batch", 3, 8, 8]}],
                        dims={"batch": [1, 2]})
    assert not (tmp_path / ".nnx-modules" / "m").exists()


def test_assert_conformant_passes_and_fails(tmp_path):
    require_runtime()
    import torch
    import worker_models

    passed = ec.assert_conformant(worker_models.two_in_two_out(), tmp_path, (torch.randn(2, 4), torch.randn(2, 5)),
                                  name="two", exporter="torchscript", dims={"batch": [2, 3]},
                                  inputs=[{"name": "x", "shape": ["batch", 4]}, {"name": "y", "shape": ["batch", 5]}])
    assert passed["status"] == "passed"
    branch = ec.ModuleProfile("branch", "torchscript", f"{ZOO}:shape_branch",
                              [{"name": "x", "shape": ["batch", 4], "dtype": "float32"}], {"batch": [2, 3]})
    with pytest.raises(AssertionError) as raised:
        nnx.assert_conformant(branch, tmp_path)
    record = raised.value.record
    assert record["failure"] == "mismatch", record
    assert str(raised.value) == "\n".join(ec.summary_lines([record]))
    assert "branch: failed (mismatch)" in str(raised.value)


def test_every_kind_of_profile_takes_requires_and_its_hash_from_one_base():
    module = ec.ModuleProfile.from_json(conv_bn_profile().to_json())
    feedfwd = ec.Profile("ff", exporter="dynamo", model={"hidden_dims": [3]})
    assert ec.Profile.requires is ec.ModuleProfile.requires and ec.Profile.__hash__ is ec.ModuleProfile.__hash__
    assert feedfwd.requires[-1] == "onnxscript" and "torch" in module.requires
    assert len({feedfwd, ec.Profile("ff", exporter="dynamo", model={"hidden_dims": (3,)}), module,
                ec.ModuleProfile.from_json(module.to_json())}) == 2   # equal profiles hash alike, a model included


def test_check_module_reads_the_profile_files_dims_and_refuses_the_old_form(tmp_path):
    import torch
    import worker_models

    with pytest.raises(ec.UsageError) as refused:
        ec.check_module(worker_models.conv_bn(), torch.randn(2, 3, 8, 8), name="old", exporter="torchscript",
                        root=tmp_path, dims={"batch": (0, [2, 1, 3])})
    assert '{"batch": [2, 1, 3]}' in str(refused.value) and "inputs=" in str(refused.value), str(refused.value)
    assert not (tmp_path / ".nnx-modules" / "old").exists()


def test_check_module_never_infers_an_integer_range(tmp_path):
    import torch
    import worker_models

    tokens = torch.randint(6, 15, (2, 5))  # an example drawing [6, 15) of a [0, 20) vocabulary
    with pytest.raises(ec.UsageError) as refused:
        ec.check_module(worker_models.embedder(), tokens, name="ints", exporter="torchscript", root=tmp_path)
    assert 'inputs[0].range: an integer input needs "range"' in str(refused.value), str(refused.value)
    assert not (tmp_path / ".nnx-modules" / "ints").exists()  # refused before anything was written


def test_check_module_names_inputs_after_forward_and_takes_a_given_range(tmp_path):
    require_runtime()
    import torch
    import worker_models

    record = ec.check_module(worker_models.embedder(), torch.randint(0, 20, (2, 5)), name="ranged",
                             exporter="torchscript", root=tmp_path, ranges={"tokens": [0, 20]})
    assert record["status"] == "passed", ec.summary_lines([record])
    assert record["inputs"] == [{"name": "tokens", "shape": [2, 5], "dtype": "int64", "range": [0, 20]}]
