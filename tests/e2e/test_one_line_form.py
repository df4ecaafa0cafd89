"""The one-line form, `check` (doc/profile-files.md, "The one-line form"): a profile named by flags that are
its JSON keys one to one. `check --help` shows one example per kind and each runs as printed; each gives the
record a profile file holding the same object gives (`source` aside), for a module and for an ONNX file with a
data folder; a missing required key is exit 2 naming its flag, and an unknown flag near a key is answered
with that key, by the profile reader's own checks (near none, with check's own flag near it)."""
import json
import os
import shlex
import shutil
import subprocess

import pytest

from conftest import CLI, REPO, require_runtime
from onnx_file_support import export_own_file

NO_PYTHON = {"NNX_PYTHON": "/bin/false"}


def cli_in(folder, *args, env=None):
    require_runtime()
    return subprocess.run([str(CLI), *map(str, args)], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def help_examples() -> list:
    """The command lines `check --help` prints, as argument lists after `nnx-conformance`."""
    done = cli_in(REPO, "check", "--help")
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("nnx-conformance check ")]
    return [shlex.split(line)[1:] for line in lines]


def record_of(report):
    record = json.loads(report.read_text())["profiles"][0]
    record.pop("source")
    return record


def check_then_file(folder, words, env=None):
    """The example `words` run as printed in `folder`, then a profile file there holding the object its flags
    name (each value as check reads it: JSON, else a bare string); both records, `source` aside."""
    done = cli_in(folder, *words, "--quiet", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    output = folder / words[words.index("--output") + 1]
    pairs = [w for i, w in enumerate(words[1:]) if words[i] != "--output" and w != "--output"]
    profile = {}
    for flag, value in zip(pairs[::2], pairs[1::2]):
        try:
            profile[flag[2:]] = json.loads(value)
        except json.JSONDecodeError:
            profile[flag[2:]] = value
    (folder / "p.json").write_text(json.dumps([profile]))
    again = cli_in(folder, "run", "--profile-file", "p.json", "--output", "from-file/r.json", "--quiet", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    return record_of(output), record_of(folder / "from-file" / "r.json")


@pytest.fixture(scope="module")
def examples():
    module, onnx = help_examples()
    assert "--module" in module and "--onnx" in onnx and "--data" in onnx
    return module, onnx


def test_a_module_named_by_the_help_example_gives_the_record_of_the_same_profile_file(examples, tmp_path):
    (tmp_path / "tests" / "models").mkdir(parents=True)  # the example runs from the repository's root
    shutil.copy(REPO / "tests" / "models" / "zoo.py", tmp_path / "tests" / "models" / "zoo.py")
    by_flags, by_file = check_then_file(tmp_path, examples[0])
    assert (by_flags["format"], by_flags["status"], by_flags["level"]) == (
        "nnx.module-conformance/1", "passed", "executed")
    assert by_flags == by_file


def test_an_onnx_file_named_by_the_help_example_gives_the_record_of_the_same_profile_file(examples, tmp_path):
    export_own_file(tmp_path)  # model.onnx and data/ in the current folder, as the example names them
    by_flags, by_file = check_then_file(tmp_path, examples[1], env=NO_PYTHON)
    assert (by_flags["format"], by_flags["status"], by_flags["level"]) == (
        "nnx.model-conformance/1", "passed", "executed")
    assert by_flags["model"]["onnx"] == str(tmp_path / "model.onnx")  # relative to the current folder
    assert by_flags == by_file


def test_a_missing_required_key_is_exit_2_naming_its_flag(tmp_path):
    done = cli_in(tmp_path, "check", "--output", "r.json", "--exporter", "torchscript", "--module", "m.py:make",
                  "--inputs", '[{"name": "x", "shape": [3]}]')
    assert done.returncode == 2 and "--name: missing" in done.stderr, done.stderr
    assert not (tmp_path / "r.json").exists()


def test_an_unknown_flag_near_a_key_is_answered_with_the_key_or_checks_own_flag(tmp_path):
    done = cli_in(tmp_path, "check", "--output", "r.json", "--name", "m", "--exporter", "torchscript",
                  "--module", "m.py:make", "--inputs", '[{"name": "x", "shape": ["batch"]}]', "--dim", '{"batch": [2]}', "--jbos", "2")
    assert done.returncode == 2 and "--dim: unknown key; did you mean --dims?" in done.stderr, done.stderr
    assert "--jbos: unknown key; did you mean --jobs?" in done.stderr, done.stderr  # check's own flag


@pytest.mark.parametrize("words, needle", [
    (["--name", "m", "--name", "n"], "--name is given twice"),
    (["--name", "m", "--inputs", "[{name}]"], "--inputs: [{name}] is not JSON"),
    (["--name"], "--name needs a value"),
    (["name", "m"], "--KEY VALUE pairs"),
])
def test_flags_that_are_not_one_json_object_are_exit_2(tmp_path, words, needle):
    done = cli_in(tmp_path, "check", "--output", "r.json", *words)
    assert done.returncode == 2 and needle in done.stderr, done.stderr
