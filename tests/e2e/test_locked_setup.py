"""The locked setup (doc/building-and-testing.md, "Locked dependencies"): requirements.lock and tests/original.lock, the cache
check of scripts/fetch_locked.py, and the lock's sha256 in every record.

The cache tests run the bootstrap's own fetch/verify step for real (pip and npm downloads from their
registries, apt from Debian) into temporary cache folders. The empty-cache case is limited to a closed part
of the lock to stay fast: pytest and its four dependencies (small wheels) plus the whole ONNX Runtime npm
package; the warm case takes the same from the bootstrap's own cache ($NNX_CACHE), which must download
nothing.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from conftest import BUILD, BUNDLED_ORT, REPO, require_runtime
from support import sha256_of

FETCH = REPO / "scripts" / "fetch_locked.py"
LOCK = REPO / "requirements.lock"
ORIGINAL_LOCK = REPO / "tests" / "original.lock"
VENV_PY = REPO / ".venv" / "bin" / "python"
CACHE = Path(os.environ.get("NNX_CACHE") or Path.home() / ".cache" / "nnx-conformance")
SMALL = ["iniconfig", "packaging", "pluggy", "pygments", "pytest"]   # closed under dependencies

sys.path.insert(0, str(FETCH.parent))   # the lock's scripts import their neighbours (lock_file, private_apt)
import fetch_locked  # noqa: E402
import lock_file  # noqa: E402


def pins(lock=LOCK):
    return {name: (version, hashes) for name, version, hashes in lock_file.read_lock(lock)[0]}


def part_of_lock(path, names, npm=True, deb=False, replace_hashes=None):
    """A lock holding the blocks of `names` exactly as requirements.lock writes them, and its '#@' lines."""
    text = "".join(block for name, block in lock_file.blocks(LOCK.read_text()) if name in names)
    for name, digest in (replace_hashes or {}).items():
        text = re.sub(rf"(?ms)^({re.escape(name)}==\S+).*?(?=^\S|\Z)", rf"\1 --hash=sha256:{digest}\n", text)
    extra = [line for line in LOCK.read_text().splitlines(keepends=True)
             if (npm and line.startswith("#@ npm ")) or (deb and line.startswith("#@ deb "))]
    path.write_text(text + "".join(extra))
    return path


def fetch(*args):
    return subprocess.run([sys.executable, str(FETCH), *map(str, args)], capture_output=True, text=True,
                          timeout=900)


def fetch_wheels(lock, cache):
    return fetch("wheels", lock, "--cache", cache, "--python", VENV_PY)


def cached_wheel(cache, name):
    (path,) = [p for p in (Path(cache) / "wheels").glob("*.whl") if fetch_locked.wheel_key(p.name)[0] == name]
    return path


def install(lock, cache, venv):
    base = subprocess.run([str(VENV_PY), "-c", "import sys; print(sys._base_executable)"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    done = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--require-hashes",
                           "--no-deps", "--no-index", "--find-links", str(Path(cache) / "wheels"), "-r", str(lock)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    freeze = subprocess.run([py, "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True).stdout
    site = Path(subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    files = {str(p.relative_to(site)): sha256_of(p) for p in sorted(site.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts}
    # A RECORD also lists the console scripts in bin/, whose first line names the virtualenv: not compared.
    for path in [path for path in files if path.endswith(".dist-info/RECORD")]:
        lines = (site / path).read_text().splitlines()
        files[path] = [line for line in lines if not line.startswith("../")]
    return freeze, files


def library_in(tgz):
    with tarfile.open(tgz) as archive:
        (member,) = [m for m in archive.getmembers() if m.name.endswith("/linux/x64/libonnxruntime.so.1")]
        return hashlib.sha256(archive.extractfile(member).read()).hexdigest()


def flip_one_byte(path):
    data = bytearray(Path(path).read_bytes())
    data[len(data) // 2] ^= 0x01
    Path(path).write_bytes(bytes(data))


# --- the lock itself ---------------------------------------------------------------------------------------
def test_the_lock_pins_every_distribution_of_the_venv_with_hashes():
    locked = pins()
    assert len(locked) >= 40 and all(len(hashes) >= 1 for _, hashes in locked.values())
    freeze = subprocess.run([str(VENV_PY), "-m", "pip", "freeze", "--all"], capture_output=True, text=True,
                            check=True).stdout.split()
    installed = {lock_file.normalize(line.split("==")[0]): line.split("==")[1] for line in freeze}
    installed.pop("pip")   # from the interpreter's ensurepip, as every virtualenv
    assert installed == {name: version for name, (version, _) in locked.items()}
    assert locked["torch"][0] == "2.13.0"
    (npm,) = [f for f in lock_file.read_extra(LOCK) if f[0] == "npm"]
    (deb,) = [f for f in lock_file.read_extra(LOCK) if f[0] == "deb"]
    assert npm[1:3] == ["onnxruntime-node", "1.30.0"] and re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", npm[3])
    assert deb[1:3] == ["trixie", "libonnxruntime-dev"] and re.fullmatch(r"sha256:[0-9a-f]{64}", deb[5])
    # .deps was made from these pins, and its library is the one in the locked npm package.
    stamp = (BUNDLED_ORT.parents[1] / ".nnx-lock").read_text().split("\n")
    assert stamp[:2] == [" ".join(["#@", *npm]), " ".join(["#@", *deb])]
    assert sha256_of(BUNDLED_ORT) == library_in(CACHE / "onnxruntime-node-1.30.0.tgz")


def test_the_original_lock_adds_only_what_the_venv_lacks():
    original, main = pins(ORIGINAL_LOCK), pins()
    # (tqdm and pyyaml, which the original needs too, come from .venv: transformers brings them into requirements.lock)
    assert {"thekaveh-nnx", "onnxruntime", "pandas", "scikit-learn", "prettytable"} <= set(original)
    assert original["thekaveh-nnx"][0] == "0.4.1" and original["onnxruntime"][0] == "1.30.0"
    assert not set(original) & set(main)
    stamp = REPO / "build" / "original-venv" / ".nnx-original-lock"   # scripts/install_original.sh's
    assert stamp.read_bytes() == ORIGINAL_LOCK.read_bytes()


def test_the_extras_resolve_from_the_same_lock():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    locked = {**pins(ORIGINAL_LOCK), **pins()}
    assert extras
    for extra, requirements in extras.items():
        for text in requirements:
            requirement = Requirement(text)
            name = lock_file.normalize(requirement.name)
            assert name in locked, f"nnx-conformance[{extra}] needs {name}, which no lock pins"
            assert requirement.specifier.contains(locked[name][0]), f"nnx-conformance[{extra}]: {text} vs {locked[name][0]}"


# --- the cache ---------------------------------------------------------------------------------------------
def test_an_empty_and_a_warm_cache_install_the_same(tmp_path):
    lock = part_of_lock(tmp_path / "part.lock", SMALL)
    cold, warm = tmp_path / "cold-cache", CACHE
    done = fetch_wheels(lock, cold)
    assert done.returncode == 0, done.stderr
    assert f"downloading {len(SMALL)} wheel(s)" in done.stderr and f"({len(SMALL)} downloaded)" in done.stderr
    done = fetch("npm", lock, "--cache", cold)
    assert done.returncode == 0 and "fetching onnxruntime-node@1.30.0" in done.stderr, done.stderr
    cold_tgz = Path(done.stdout.strip())
    # The bootstrap's cache is warm: nothing is downloaded, every file is checked.
    done = fetch_wheels(lock, warm)
    assert done.returncode == 0 and "(0 downloaded)" in done.stderr and "REFUSED" not in done.stderr, done.stderr
    done = fetch("npm", lock, "--cache", warm)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    warm_tgz = Path(done.stdout.strip())
    for name in SMALL:
        assert cached_wheel(cold, name).name == cached_wheel(warm, name).name
        assert sha256_of(cached_wheel(cold, name)) == sha256_of(cached_wheel(warm, name))
    assert sha256_of(cold_tgz) == sha256_of(warm_tgz)
    assert library_in(cold_tgz) == library_in(warm_tgz) == sha256_of(BUNDLED_ORT)

    cold_freeze, cold_files = install(lock, cold, tmp_path / "cold-venv")
    warm_freeze, warm_files = install(lock, warm, tmp_path / "warm-venv")
    assert cold_freeze == warm_freeze
    for name in SMALL:
        assert f"{name}=={pins()[name][0]}".lower() in cold_freeze.lower()
    assert cold_files == warm_files and any(path.startswith("pytest/") for path in cold_files)


def test_a_flipped_byte_in_the_cache_is_refused_named_and_fetched_again(tmp_path):
    cache = tmp_path / "cache"
    (cache / "wheels").mkdir(parents=True)
    lock = part_of_lock(tmp_path / "part.lock", ["iniconfig"], npm=True, deb=True)
    wheel = cache / "wheels" / cached_wheel(CACHE, "iniconfig").name
    shutil.copyfile(cached_wheel(CACHE, "iniconfig"), wheel)
    tgz = cache / "onnxruntime-node-1.30.0.tgz"
    shutil.copyfile(CACHE / "onnxruntime-node-1.30.0.tgz", tgz)
    (deb_pin,) = [f for f in lock_file.read_extra(LOCK) if f[0] == "deb"]
    deb = fetch_locked.fetch_deb(str(LOCK), str(CACHE))   # the bootstrap's cached .deb (checked)
    (cache / "apt-trixie" / "debs").mkdir(parents=True)
    shutil.copytree(CACHE / "apt-trixie" / "lists", cache / "apt-trixie" / "lists")   # the index, not the .deb
    cached_deb = cache / "apt-trixie" / "debs" / Path(deb).name
    shutil.copyfile(deb, cached_deb)
    good = {path: sha256_of(path) for path in (wheel, tgz, cached_deb)}
    for path in good:
        flip_one_byte(path)
        assert sha256_of(path) != good[path]

    done = fetch_wheels(lock, cache)
    assert done.returncode == 0, done.stderr
    assert f"REFUSED cached {wheel}: sha256 " in done.stderr
    assert f"{wheel.name}: downloaded again, matches the lock" in done.stderr
    done = fetch("npm", lock, "--cache", cache)
    assert done.returncode == 0, done.stderr
    assert f"REFUSED cached {tgz}: its integrity sha512-" in done.stderr
    assert f"{tgz.name}: downloaded again, matches the lock" in done.stderr and done.stdout.strip() == str(tgz)
    done = fetch("deb", lock, "--cache", cache)
    assert done.returncode == 0, done.stderr
    assert f"REFUSED cached {cached_deb}: sha256 " in done.stderr and deb_pin[3] in done.stderr
    assert f"{cached_deb.name}: downloaded again, matches the lock" in done.stderr
    for path, digest in good.items():
        assert sha256_of(path) == digest, path
    # The recovered cache installs what the lock names.
    freeze, _ = install(lock, cache, tmp_path / "venv")
    assert f"iniconfig=={pins()['iniconfig'][0]}" in freeze


def test_a_file_still_wrong_after_downloading_again_is_refused_and_never_installed(tmp_path):
    cache = tmp_path / "cache"
    (cache / "wheels").mkdir(parents=True)
    wrong = hashlib.sha256(b"not the iniconfig wheel").hexdigest()
    lock = part_of_lock(tmp_path / "wrong.lock", ["iniconfig"], npm=False, replace_hashes={"iniconfig": wrong})
    assert pins(lock)["iniconfig"][1] == {wrong}
    wheel = cache / "wheels" / cached_wheel(CACHE, "iniconfig").name
    shutil.copyfile(cached_wheel(CACHE, "iniconfig"), wheel)

    done = fetch_wheels(lock, cache)
    assert done.returncode == 1
    assert f"REFUSED cached {wheel}: sha256 {sha256_of(cached_wheel(CACHE, 'iniconfig'))}" in done.stderr
    assert (f"FAILED: {wheel.name} (iniconfig=={pins()['iniconfig'][0]}) downloaded again has sha256 "
            in done.stderr) and "not installed, not cached" in done.stderr
    assert list((cache / "wheels").iterdir()) == []   # neither the cached nor the downloaded file is kept

    # The npm package: the same for an integrity the registry's bytes do not have.
    npm_lock = tmp_path / "npm.lock"
    npm_lock.write_text("#@ npm onnxruntime-node 1.30.0 sha512-" + "A" * 86 + "==\n")
    done = fetch("npm", npm_lock, "--cache", cache)
    assert done.returncode == 1 and done.stdout == ""
    assert "FAILED: onnxruntime-node-1.30.0.tgz (onnxruntime-node@1.30.0) downloaded has integrity" in done.stderr
    assert not (cache / "onnxruntime-node-1.30.0.tgz").exists()


# --- the records -------------------------------------------------------------------------------------------
def test_records_name_the_sha256_of_the_committed_lock(both_profiles, tmp_path):
    done, report, _ = both_profiles
    assert report is not None, done.stderr
    expected = sha256_of(LOCK)
    assert [r["versions"]["dependency_lock_sha256"] for r in report["profiles"]] == [expected, expected]
    # What `make conformance` runs: the brief's script over the Python package this build staged.
    require_runtime()
    out = tmp_path / "conformance.json"
    script = subprocess.run([str(VENV_PY), str(REPO / "scripts" / "check_export_conformance.py"), "--output",
                             str(out), "--force", "--profile", "feedfwd-fp32-torchscript"],
                            capture_output=True, text=True, env={**os.environ, "NNX_BUILD_DIR": str(BUILD)},
                            timeout=900)
    assert script.returncode == 0, script.stdout + script.stderr
    (record,) = json.loads(out.read_text())["profiles"]
    assert record["versions"]["dependency_lock_sha256"] == expected


def test_the_wheel_tools_lock_holds_the_build_requirements_at_the_releases_of_requirements_lock():
    tools = pins(REPO / "scripts" / "wheel-tools.lock")
    build_requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    main = pins()
    for text in build_requires:
        name = lock_file.normalize(Requirement(text).name)
        assert name in tools, f"{name} (pyproject.toml's build requirement) is not in scripts/wheel-tools.lock"
        assert Requirement(text).specifier.contains(tools[name][0]), (text, tools[name][0])
    for name, (version, hashes) in tools.items():
        if name in main:
            assert (version, hashes) == main[name], f"{name}: wheel-tools.lock {version}, requirements.lock {main[name][0]}"
