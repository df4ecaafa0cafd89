"""The wheel's extras bound torch and onnxruntime to the releases it is tested with (doc/install.md, "Tested
releases"): each extra names both with a lower and an upper bound, the bounds are the ones the page's table
gives, and the tested versions (requirements.lock's torch, the original's lock's onnxruntime, the runtime
matrix's releases in scripts/runtimes.lock) lie inside them."""
import re
import tomllib

from packaging.requirements import Requirement

from conftest import REPO

BOUNDED = ("torch", "onnxruntime")


def extras():
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def locked(lock, name):
    return re.search(rf"^{name}==(\S+)", lock.read_text(), re.M).group(1)


def test_every_extra_bounds_torch_and_onnxruntime_above_and_below_as_the_install_page_says():
    page = (REPO / "doc" / "install.md").read_text()
    for extra, requirements in extras().items():
        named = {Requirement(text).name: Requirement(text) for text in requirements}
        for name in BOUNDED:
            bounds = {spec.operator: spec.version for spec in named[name].specifier}
            assert set(bounds) == {">=", "<"}, f"[{extra}] {named[name]}"
            assert f"| {name} | `>={bounds['>=']},<{bounds['<']}` |" in page, named[name]


def test_the_tested_releases_lie_inside_the_bounds():
    tested = {"torch": [locked(REPO / "requirements.lock", "torch")],
              "onnxruntime": [locked(REPO / "tests" / "original.lock", "onnxruntime")]}
    matrix = [line.split()[0] for line in (REPO / "scripts" / "runtimes.lock").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    tested["onnxruntime"] += [version for version in matrix if tuple(map(int, version.split("."))) >= (1, 21)]
    for requirements in extras().values():
        named = {Requirement(text).name: Requirement(text) for text in requirements}
        for name in BOUNDED:
            for version in tested[name]:
                assert named[name].specifier.contains(version), f"{name} {version} outside {named[name]}"


def test_the_metadata_and_the_install_page_name_the_one_cpython_the_wheel_serves_and_the_lock_tests():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    # the Python every lock is resolved for (scripts/lock_file.py PLATFORM), the one the tests run
    tested = re.search(r'"--python-version", "(\d+)\.(\d+)"', (REPO / "scripts" / "lock_file.py").read_text()).groups()
    minor = f"{tested[0]}.{tested[1]}"
    assert project["requires-python"] == f">={minor},<{tested[0]}.{int(tested[1]) + 1}", project["requires-python"]
    versions = [c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                if re.fullmatch(r"Programming Language :: Python :: \d+\.\d+", c)]
    assert versions == [minor], project["classifiers"]
    assert "Programming Language :: Python :: Implementation :: CPython" in project["classifiers"]
    page = (REPO / "doc" / "install.md").read_text()
    assert f"The wheel serves CPython {minor} only" in page
    assert f"`cp{minor.replace('.', '')}-cp{minor.replace('.', '')}`" in page
    assert f'`requires-python = "{project["requires-python"]}"`' in page
