"""The tested profiles' records do not change by a byte: a run of both (conftest.both_profiles, its source
pinned with --source-revision) writes the committed golden records of tests/golden/, only the values this
machine decides set aside (golden_records.py says which and why), and the artifacts on disk are the bytes
those records hash; the published original (build/original-venv) still validates the golden records and
verifies the run's artifacts."""
import difflib
import hashlib
import json
import os
import subprocess

from conftest import PINNED_SOURCE_REVISION
from golden_records import GOLDENS, SET_ASIDE, TESTED_PROFILES, golden_path, machine_class, normalised, written_form
from support import records_by_profile


def differences(golden: str, fresh: str) -> str:
    return "".join(difflib.unified_diff(golden.splitlines(True), fresh.splitlines(True), "golden", "this run"))


def test_both_tested_profiles_write_the_golden_records_byte_for_byte(both_profiles):
    done, report, artifacts = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    raw = (artifacts.parent / "report.json").read_text()
    assert raw == written_form(json.loads(raw)), "the report is not in the writer's form the goldens compare in"
    records = records_by_profile(report)
    assert list(records) == list(TESTED_PROFILES)
    for profile in TESTED_PROFILES:
        assert golden_path(profile).exists(), (
            f"no golden records for this machine's CPU class {machine_class()!r}: write them from a run on it "
            "(tests/e2e/golden_records.py says how) and commit them")
        golden, fresh = golden_path(profile).read_text(), normalised(records[profile])
        assert records[profile]["source"]["revision"] == PINNED_SOURCE_REVISION
        assert fresh == golden, f"{profile}'s record is not its golden record:\n{differences(golden, fresh)}"


def test_the_artifacts_are_the_bytes_the_golden_records_hash(both_profiles):
    _, _, artifacts = both_profiles
    for profile in TESTED_PROFILES:
        listed = json.loads(golden_path(profile).read_text())["artifacts"]
        folder = artifacts / listed["directory"]
        on_disk = {p.name: [p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest()] for p in folder.iterdir()}
        assert on_disk == {f["path"]: [f["bytes"], f["sha256"]] for f in listed["files"]}, profile


def runtime_numbers_blanked(value):
    """`value` with every number ONNX Runtime's kernels decide (an error or a margin) replaced by a mark."""
    if isinstance(value, dict):
        return {key: "a runtime number" if key in ("max_abs_error", "max_rel_error", "margin")
                else runtime_numbers_blanked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [runtime_numbers_blanked(item) for item in value]
    return value


def test_the_cpu_classes_goldens_differ_only_in_the_runtimes_errors_and_margins():
    classes = sorted(path.name for path in GOLDENS.iterdir() if path.is_dir())
    assert classes == ["avx2", "avx512"]
    for profile in TESTED_PROFILES:
        avx2, avx512 = (json.loads((GOLDENS / name / f"{profile}.json").read_text()) for name in classes)
        assert avx2 != avx512, profile   # the classes do differ: else one golden would do
        assert runtime_numbers_blanked(avx2) == runtime_numbers_blanked(avx512), profile


def test_the_cpu_class_is_read_from_the_cpus_flags():
    assert machine_class("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma avx512f avx512bw\n") == "avx512"
    assert machine_class("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: avx2 fma avx512f\n") == "avx512"
    assert machine_class("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: avx2 fma avx512f avx512bw\n") == "avx2"
    assert machine_class("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n") == "avx2"
    assert machine_class("processor\t: 0\nflags\t\t: fpu sse2\n") == "other"


def test_only_the_set_aside_values_are_hidden_from_the_comparison(both_profiles):
    _, report, _ = both_profiles
    record = records_by_profile(report)[TESTED_PROFILES[0]]
    for key in SET_ASIDE:   # a machine's own description changes nothing ...
        assert normalised({**record, "versions": {**record["versions"], key: "elsewhere"}}) == normalised(record)
    for key in ("torch", "onnxruntime", "dependency_lock_sha256"):   # ... the checkout's does
        assert normalised({**record, "versions": {**record["versions"], key: "other"}}) != normalised(record), key
    assert normalised({**record, "tolerances": {"atol": 1e-05, "rtol": 0.001}}) != normalised(record)


def test_the_published_original_validates_the_golden_records_and_verifies_the_run(both_profiles, original_python,
                                                                                    tmp_path):
    _, report, artifacts = both_profiles
    goldens = [str(golden_path(profile)) for profile in TESTED_PROFILES]
    (tmp_path / "run.json").write_text(json.dumps(report))
    script = ("import json, sys\nfrom nnx.export_conformance import validate_record, verify_artifacts\n"
              "for path in sys.argv[3:]: validate_record(json.load(open(path)))\n"
              "for record in json.load(open(sys.argv[1]))['profiles']:\n"
              "    validate_record(record); verify_artifacts(record, sys.argv[2])\n"
              "print('accepted', len(sys.argv[3:]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(original_python), "-c", script, str(tmp_path / "run.json"), str(artifacts), *goldens],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "accepted 2", done.stdout + done.stderr
