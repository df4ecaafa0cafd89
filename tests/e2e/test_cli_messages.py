"""What the command line says about itself, on the built binary: `--version`, the exit codes and tested
profiles in `--help` (the core's own tables, as the Python package reads them), `--jobs`' bound in words,
and the nearest flag to a mistyped one. Each refusal is a usage error (exit 2) that writes nothing."""
import re
import sys

import pytest

from conftest import BUILD, run_cli

sys.path.insert(0, str(BUILD / "python"))

import nnx  # noqa: E402
import nnx.export_conformance as ec  # noqa: E402


def test_version_names_the_build_and_the_formats_it_reads_and_writes():
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"nnx-conformance {nnx.__version__} (records {ec.FORMAT}, "
                                   "runtime matrices nnx.runtime-matrix/1)")


def test_help_lists_every_exit_code_and_the_tested_profiles():
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    codes = dict((name, int(code)) for code, name in re.findall(r"^  (\d+)  ([a-z-]+) \(stage", done.stdout, re.M))
    assert codes == dict(ec.EXIT_CODES)
    for code in ("0", "1", "2", "128+N"):
        assert re.search(rf"^  {re.escape(code)} ", done.stdout, re.M), code
    profiles = done.stdout.split("Tested profiles:")[1].split()
    assert profiles == list(ec.PROFILES)


@pytest.mark.parametrize("value, words", [
    ("0", "--jobs: must be at least 1, not 0"),
    ("-3", "--jobs: must be at least 1, not -3"),
    ("1.5", "--jobs: must be a whole number of at least 1, not '1.5'"),
    ("many", "--jobs: must be a whole number of at least 1, not 'many'"),
    ("99999999999", "--jobs: must be a whole number from 1 to 2147483647, not 99999999999"),
])
def test_jobs_out_of_bounds_is_refused_in_words_and_writes_nothing(tmp_path, value, words):
    done = run_cli("run", "--output", tmp_path / "out" / "r.json", "--jobs", value)
    assert done.returncode == 2
    assert done.stderr.strip() == f"nnx-conformance: usage error: {words} (see --help)"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, nearest", [
    (["run", "--outptu", "r.json"], "--output"),
    (["run", "--output", "r.json", "--profil", "feedfwd-fp32-dynamo"], "--profile"),
    (["execute", "r.json", "root", "--refrence", "torch"], "--reference"),
])
def test_a_mistyped_flag_is_answered_with_the_nearest_one(tmp_path, args, nearest):
    done = run_cli(*args)
    assert done.returncode == 2
    assert f"did you mean {nearest}?" in done.stderr, done.stderr


def test_a_flag_far_from_every_known_one_gets_no_guess(tmp_path):
    done = run_cli("run", "--output", tmp_path / "r.json", "--zzzzzz")
    assert done.returncode == 2
    assert "--zzzzzz" in done.stderr and "did you mean" not in done.stderr
