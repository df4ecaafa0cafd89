"""The CI workflows doc/runtime-matrix.md documents ("Many machines"), run here shard by shard as each CI would
run them: the GitHub Actions job matrix (`--shard ${{ matrix.shard }}/3`) and the GitLab `parallel: 3` job
(`--shard ci`, CI_NODE_INDEX from 1), then each merge job's command. Only the nnx-conformance commands run
(the checkout, `make build` and the artifact steps are the CI's own); the report and its artifacts are a real
run of both tested profiles, under the names the workflows use. Each merged document is the unsharded matrix
of the same releases."""
import json
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import BUILD, REPO, require_runtime, run_cli
from support import without_ci_shard, without_seconds

def documented_workflows() -> list:
    text = (REPO / "doc" / "runtime-matrix.md").read_text()
    section = text[text.index("## Many machines"):]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def nnx_commands(steps) -> list:
    """The workflow's nnx-conformance command lines (a step is a `run:` mapping or a GitLab script line)."""
    lines = [step.get("run", "") if isinstance(step, dict) else step for step in steps]
    return [line.strip() for line in lines if line.strip().startswith("build/nnx-conformance")]


def sh(command: str, cwd, extra_env=None):
    return subprocess.run(["bash", "-c", command.replace("build/nnx-conformance", str(BUILD / "nnx-conformance"))],
                          cwd=cwd, capture_output=True, text=True, env=without_ci_shard(extra_env or {}), timeout=900)


@pytest.fixture(scope="module")
def workspace(both_profiles, tmp_path_factory):
    """A folder holding conformance.json and conformance-artifacts, as the workflows' artifact step leaves it,
    and the unsharded matrix of the workflows' releases made there."""
    require_runtime()
    done, _, root = both_profiles
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path_factory.mktemp("ci")
    shutil.copy(root.parent / "report.json", folder / "conformance.json")
    shutil.copytree(root, folder / "conformance-artifacts")
    github = documented_workflows()[0]
    (matrix_command,) = nnx_commands(github["jobs"]["matrix"]["steps"])
    whole = re.sub(r"--output \S+ --shard \S+", "--output whole.json",
                   matrix_command.replace("${{ matrix.shard }}", "0"))
    done = sh(whole, folder)
    assert (folder / "whole.json").is_file(), done.stdout + done.stderr
    return folder, json.loads((folder / "whole.json").read_text())


def test_the_github_job_matrix_run_shard_by_shard_merges_into_the_unsharded_matrix(workspace):
    folder, whole = workspace
    jobs = documented_workflows()[0]["jobs"]
    (matrix_command,) = nnx_commands(jobs["matrix"]["steps"])
    shards = jobs["matrix"]["strategy"]["matrix"]["shard"]
    for shard in shards:
        sh(matrix_command.replace("${{ matrix.shard }}", str(shard)), folder)
        assert json.loads((folder / f"part-{shard}.json").read_text())["shard"] == f"{shard}/{len(shards)}"
    (merge_command,) = nnx_commands(jobs["merge"]["steps"])
    done = sh(merge_command, folder)
    assert (folder / "matrix.md").is_file() and (folder / "matrix.xml").is_file(), done.stderr
    assert without_seconds(json.loads((folder / "matrix.json").read_text())) == without_seconds(whole)


def test_the_gitlab_parallel_job_with_shard_ci_merges_into_the_unsharded_matrix(workspace, tmp_path):
    folder, whole = workspace
    gitlab = documented_workflows()[1]
    (matrix_command,) = nnx_commands(gitlab["matrix"]["script"])
    total = gitlab["matrix"]["parallel"]
    work = tmp_path / "gitlab"
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns("part-*", "matrix.*"))
    for node in range(1, total + 1):  # GitLab's CI_NODE_INDEX counts from 1
        done = sh(matrix_command, work, {"CI_NODE_INDEX": str(node), "CI_NODE_TOTAL": str(total)})
        assert f"matrix: shard {node - 1}/{total} from CI_NODE_INDEX={node}" in done.stderr, done.stderr
    (merge_command,) = nnx_commands(gitlab["merge"]["script"])
    sh(merge_command, work)
    assert without_seconds(json.loads((work / "matrix.json").read_text())) == without_seconds(whole)
    assert run_cli("validate", work / "matrix.json").returncode == 0
