"""Every ONNX Runtime release of scripts/runtimes.lock (1.16.3 to 1.32.0) loads through the core's negotiated
C API version and re-executes both tested profiles' real report (issue 11: the matrix's runtimes).

The libraries are the ones `make runtimes` (and the bootstrap) checked into the cache against their packages;
the report and its artifacts are one real run of both profiles (conftest.both_profiles). A library older than
the core supports (a fake saying 1.15.1, tests/fakes/old_runtime.cc) is refused as missing-dependency.
"""
import json

import pytest

from conftest import BUILD, REPO, run_cli
from support import runtime_library

LOCK = REPO / "scripts" / "runtimes.lock"
OLD_RUNTIME = BUILD / "libnnx_old_runtime.so"


def locked_versions():
    lines = [line.split() for line in LOCK.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return [fields[0] for fields in lines]


def test_the_lock_names_the_default_set_from_1_16_to_1_32():
    assert {"1.16.3", "1.20.1", "1.24.4", "1.30.0", "1.32.0"} <= set(locked_versions())


@pytest.mark.parametrize("version", locked_versions())
def test_every_locked_release_reexecutes_both_profiles(both_profiles, version, tmp_path):
    done, report, root = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "again.json"
    again = run_cli("execute", root.parent / "report.json", root, "--onnxruntime", runtime_library(version),
                    "--output", out)
    records = json.loads(out.read_text())["profiles"]
    assert len(records) == 2
    if version == "1.16.3":  # measured: the torchscript export (IR 8) runs; the dynamo export (IR 10) is refused
        assert [r["status"] for r in records] == ["passed", "failed"], [r["failure"] for r in records]
    for record in records:
        assert record["runtime"]["version"] == version
        if tuple(int(p) for p in version.split(".")[:2]) >= (1, 20):
            assert record["level"] == "executed" and record["status"] == "passed", json.dumps(record)[:2000]
        elif record["failure"] is not None:
            # An older release may not read the model (e.g. the dynamo export's IR version 10): that cell is a
            # load-error quoting the runtime's own refusal, never a crash or a refusal of the library.
            assert record["failure"] == "load-error", json.dumps(record)[:2000]
            assert record["stages"]["load"]["status"] == "failed"
            assert "Unsupported model IR version" in record["stages"]["load"]["detail"]["error"]
    if all(r["status"] == "passed" for r in records):
        assert again.returncode == 0, again.stdout + again.stderr
    assert run_cli("validate", out).returncode == 0


def test_a_release_older_than_the_core_supports_is_missing_dependency(both_profiles, tmp_path):
    done, report, root = both_profiles
    out = tmp_path / "again.json"
    again = run_cli("execute", root.parent / "report.json", root, "--onnxruntime", OLD_RUNTIME, "--output", out)
    assert again.returncode == 10, again.stdout + again.stderr
    assert "ONNX Runtime 1.15.1 is older than 1.16, the oldest release this core supports" in again.stderr


def test_onnxruntime_version_executes_under_the_cached_release(both_profiles, tmp_path):
    done, report, root = both_profiles
    out = tmp_path / "again.json"
    again = run_cli("execute", root.parent / "report.json", root, "--onnxruntime-version", "1.20.1",
                    "--output", out)
    assert again.returncode == 0, again.stdout + again.stderr
    records = json.loads(out.read_text())["profiles"]
    assert [r["runtime"]["version"] for r in records] == ["1.20.1", "1.20.1"]
    assert all(r["versions"]["onnxruntime_library"].endswith("libonnxruntime.so.1.20.1") for r in records)


@pytest.mark.parametrize("args,needle", [
    (["--onnxruntime-version", "9.9.9"], "make runtimes ORT_VERSIONS=9.9.9"),
    (["--onnxruntime-version", "latest"], "is not a release number X.Y.Z"),
    (["--onnxruntime-version", "1.20.1", "--onnxruntime", "/x.so"], "excludes"),
])
def test_onnxruntime_version_not_in_the_cache_is_a_usage_error_naming_make_runtimes(both_profiles, tmp_path,
                                                                                       args, needle):
    done, report, root = both_profiles
    out = tmp_path / "again.json"
    again = run_cli("execute", root.parent / "report.json", root, *args, "--output", out)
    assert again.returncode == 2, again.stdout + again.stderr
    assert needle in again.stderr and not out.exists()
