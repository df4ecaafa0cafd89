"""Shards balanced by an earlier matrix's seconds (doc/runtime-matrix.md, "Many machines"): every cell of a
matrix records its wall time (`seconds`), and `matrix --shard K/N --balance EARLIER.json` deals the cells out
longest first to the shard with the least seconds so far, so every machine computes the same plan; the parts
record EARLIER's sha256 and merge into the unsharded matrix (each cell's own seconds apart)."""
import json

from conftest import run_cli
from support import sha256_of, without_seconds

RELEASES = ["1.16.3", "1.20.1", "1.24.4", "1.32.0"]
VERSIONS = [arg for v in RELEASES for arg in ("--onnxruntime-version", v)]


def matrix(report, root, out, *args):
    return run_cli("matrix", report, root, "--output", out, "--jobs", "2", *VERSIONS, *args)


def test_a_balanced_split_gives_the_slow_release_a_shard_of_its_own_and_merges_into_the_whole(both_profiles, tmp_path):
    done, _, root = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    report = root.parent / "report.json"
    whole = tmp_path / "whole.json"
    matrix(report, root, whole)
    document = json.loads(whole.read_text())
    assert all(isinstance(r["seconds"], float) and r["seconds"] > 0 for r in document["runtimes"])
    # An earlier matrix where 1.20.1 took as long as the three others together: it gets a shard of its own.
    earlier = json.loads(whole.read_text())
    for runtime in earlier["runtimes"]:
        runtime["seconds"] = 30.0 if runtime["version"] == "1.20.1" else 10.0
    (tmp_path / "earlier.json").write_text(json.dumps(earlier))
    parts = []
    for k in (0, 1):
        part = tmp_path / f"part{k}.json"
        done = matrix(report, root, part, "--shard", f"{k}/2", "--balance", tmp_path / "earlier.json")
        assert part.exists(), done.stdout + done.stderr
        parts.append(json.loads(part.read_text()))
    assert [[r["version"] for r in p["runtimes"]] for p in parts] == [["1.20.1"], ["1.16.3", "1.24.4", "1.32.0"]]
    assert {p["balanced_by"] for p in parts} == {sha256_of(tmp_path / "earlier.json")}
    done = run_cli("matrix-merge", tmp_path / "merged.json", tmp_path / "part0.json", tmp_path / "part1.json")
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert without_seconds(merged) == without_seconds(document) and "balanced_by" not in merged, done.stderr
    # A part of another plan (unbalanced) does not merge with a balanced one: a cell could be missing or twice.
    matrix(report, root, tmp_path / "plain1.json", "--shard", "1/2")
    done = run_cli("matrix-merge", tmp_path / "mixed.json", tmp_path / "part0.json", tmp_path / "plain1.json")
    assert done.returncode == 1 and "only shards of one plan merge" in done.stderr, done.stderr


def test_a_release_the_earlier_matrix_has_no_seconds_for_weighs_the_mean_and_is_said(both_profiles, tmp_path):
    done, _, root = both_profiles
    report = root.parent / "report.json"
    whole = tmp_path / "whole.json"
    run_cli("matrix", report, root, "--output", whole, "--onnxruntime-version", "1.24.4",
            "--onnxruntime-version", "1.32.0")
    done = matrix(report, root, tmp_path / "part.json", "--shard", "0/2", "--balance", whole)
    assert done.returncode in (0, 15), done.stdout + done.stderr
    assert "matrix: ONNX Runtime 1.16.3 has no seconds in " in done.stderr and "(the mean)" in done.stderr
    done = matrix(report, root, tmp_path / "nope.json", "--balance", whole)
    assert done.returncode == 2 and "--balance balances the cells of --shard" in done.stderr, done.stderr
    done = matrix(report, root, tmp_path / "nope.json", "--shard", "0/2", "--balance", report)
    assert done.returncode == 2 and "is not a runtime matrix to balance by" in done.stderr, done.stderr
