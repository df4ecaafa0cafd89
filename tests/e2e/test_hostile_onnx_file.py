"""Attacks on the ONNX-file kind's new surface (issue 38, "Beside the other issues"; doc/threat-model.md):
an imported file whose external data escapes its folder (`../`, an absolute path, a symlink on the way) and
hostile test_data_set_N/*.pb files are refused before anything runs, with a usage error (exit 2) naming the
problem, never a crash and never a file read from outside the model's folder."""
import json
import os
import shutil

import onnx
import pytest

from conftest import run_cli
from onnx_file_support import export_own_file, onnx_profile, write_profiles

NO_PYTHON = {"NNX_PYTHON": "/bin/false"}


@pytest.fixture(scope="module")
def own_file(tmp_path_factory):
    return export_own_file(tmp_path_factory.mktemp("own") / "src").parent


def copied(own_file, tmp_path):
    folder = tmp_path / "own"
    shutil.copytree(own_file, folder)
    return folder


def relocate_external_data(folder, location):
    """model.onnx of `folder` rewritten so that every external tensor names `location`."""
    path = folder / "model.onnx"
    model = onnx.load(str(path), load_external_data=False)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = location
    path.write_bytes(model.SerializeToString())


def refused(folder, tmp_path, needle):
    profiles = write_profiles(tmp_path / "p.json", onnx_profile(folder))
    done = run_cli("run", "--profile-file", profiles, "--output", tmp_path / "out" / "r.json", env=NO_PYTHON)
    assert done.returncode == 2, done.stdout + done.stderr
    assert needle in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()
    return done


def test_external_data_named_out_of_the_models_folder_is_refused(own_file, tmp_path):
    folder = copied(own_file, tmp_path)
    shutil.move(folder / "weights.bin", tmp_path / "weights.bin")
    relocate_external_data(folder, "../weights.bin")
    refused(folder, tmp_path, 'the external data location "../weights.bin"')


def test_external_data_named_by_an_absolute_path_is_refused(own_file, tmp_path):
    folder = copied(own_file, tmp_path)
    relocate_external_data(folder, str(folder / "weights.bin"))
    refused(folder, tmp_path, "escapes the model's folder or is not a plain relative path")


def test_external_data_reached_through_a_symlink_is_refused(own_file, tmp_path):
    folder = copied(own_file, tmp_path)
    (tmp_path / "elsewhere").mkdir()
    shutil.move(folder / "weights.bin", tmp_path / "elsewhere" / "weights.bin")
    os.symlink(tmp_path / "elsewhere", folder / "linked")
    relocate_external_data(folder, "linked/weights.bin")
    refused(folder, tmp_path, "passes through the symlink")


def huge_dims_tensor() -> bytes:
    tensor = onnx.TensorProto(name="input.1", data_type=onnx.TensorProto.FLOAT, dims=[1 << 20, 1 << 20])
    tensor.raw_data = b"\x00" * 16
    return tensor.SerializeToString()


@pytest.mark.parametrize("name,content,needle", [
    ("input_0.pb", b"\xff\xff\xff\xff garbage", "input_0.pb"),
    ("input_0.pb", huge_dims_tensor(), "input_0.pb"),
    ("output_0.pb", onnx.TensorProto(name="out", data_type=onnx.TensorProto.STRING, dims=[1]).SerializeToString(),
     "output_0.pb"),
])
def test_a_hostile_data_set_file_is_refused_cleanly(own_file, tmp_path, name, content, needle):
    folder = copied(own_file, tmp_path)
    (folder / "data" / "test_data_set_1" / name).write_bytes(content)
    refused(folder, tmp_path, needle)


def test_a_data_set_file_that_is_a_folder_is_refused_cleanly(own_file, tmp_path):
    folder = copied(own_file, tmp_path)
    target = folder / "data" / "test_data_set_0" / "output_0.pb"
    target.unlink()
    target.mkdir()
    refused(folder, tmp_path, "output_0.pb")


def test_a_data_set_that_names_an_input_the_graph_lacks_is_refused(own_file, tmp_path):
    folder = copied(own_file, tmp_path)
    pb = folder / "data" / "test_data_set_0" / "input_0.pb"
    tensor = onnx.TensorProto()
    tensor.ParseFromString(pb.read_bytes())
    tensor.name = "not_an_input"
    pb.write_bytes(tensor.SerializeToString())
    done = refused(folder, tmp_path, 'names input "not_an_input"')
    assert "input.1" in done.stderr
