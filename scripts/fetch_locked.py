#!/usr/bin/env python3
"""Takes the bootstrap's downloads from the cache only when they are the bytes the lock names.

The lock is requirements.lock (and, for the original's virtualenv, tests/original.lock): pip's format with
`--hash=sha256:` for every Python distribution, plus "#@" comment lines (pip skips them) for what comes
from outside PyPI:

    #@ npm onnxruntime-node 1.30.0 sha512-<base64>              the npm registry's dist.integrity
    #@ deb trixie libonnxruntime-dev 1.21.0+dfsg-1 amd64 sha256:<hex>   the Debian archive's SHA256

The cache ($NNX_CACHE) is only a cache: every file taken from it is hashed and compared with the lock
before use. A file that does not match is named, removed and downloaded once more (into a temporary folder
of the cache, with no other cache in between); a download that does not match either is a failure naming
the file, and it never enters the cache. Standard library only, run with the system's python3:

    fetch_locked.py wheels LOCK --cache DIR --python PY   every wheel of LOCK verified in DIR/wheels
                                                          (PY: the interpreter pip downloads for)
    fetch_locked.py npm LOCK --cache DIR                  prints the verified DIR/<name>-<version>.tgz
    fetch_locked.py deb LOCK --cache DIR                  prints the verified DIR/apt-<suite>/debs/<file>.deb
    fetch_locked.py lock --root ROOT --uv UV [--upgrade]  regenerates requirements.lock, tests/original.lock and
                                                          scripts/wheel-tools.lock (`make lock`; scripts/make_lock.py)
"""
import argparse
import base64
import glob
import os
import shutil
import subprocess
import sys
import tempfile

# Beside this script (scripts/): the lock's format (lock_file.py) and the apt set-up (private_apt.py), which
# make_lock.py shares; this script imports make_lock for `lock`, and neither imports this one.
from lock_file import Refused, extra_pin, file_digest, log, normalize, read_lock
from private_apt import private_apt

# --- Python wheels -----------------------------------------------------------------------------------------
def wheel_key(filename):
    """(normalized name, version) of a wheel's file name, or None."""
    parts = filename[:-len(".whl")].split("-") if filename.endswith(".whl") else []
    if len(parts) not in (5, 6):
        return None
    return normalize(parts[0]), parts[1]


def fetch_wheels(lock, cache, python):
    pins, _ = read_lock(lock)
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    by_key = {}
    for filename in sorted(os.listdir(wheels)):
        key = wheel_key(filename)
        if key:
            by_key.setdefault(key, []).append(os.path.join(wheels, filename))
    missing, refused = [], {}
    for name, version, hashes in pins:
        good = False
        for path in by_key.get((name, version), []):
            actual = file_digest(path, "sha256").hexdigest()
            if actual in hashes:
                good = True
            else:
                log(f"REFUSED cached {path}: sha256 {actual} is not one the lock {os.path.basename(lock)} allows "
                    f"for {name}=={version}; removed, downloading it again")
                os.remove(path)
                refused[(name, version)] = path
        if not good:
            missing.append((name, version, hashes))
    if missing:
        download_wheels(missing, wheels, python, refused, lock)
    log(f"{len(pins)} wheels of {os.path.basename(lock)} verified in {wheels} ({len(missing)} downloaded)")


def download_wheels(missing, wheels, python, refused, lock):
    log(f"downloading {len(missing)} wheel(s) into {wheels}: " + " ".join(f"{n}=={v}" for n, v, _ in missing))
    tmp = tempfile.mkdtemp(prefix=".download-", dir=wheels)
    try:
        command = [python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                   "--only-binary=:all:", "--no-cache-dir", "-d", tmp] + [f"{n}=={v}" for n, v, _ in missing]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise Refused(f"pip download failed (exit {done.returncode}):\n{done.stdout.strip()}")
        wanted = {(n, v): h for n, v, h in missing}
        for filename in sorted(os.listdir(tmp)):
            key = wheel_key(filename)
            if key not in wanted:
                raise Refused(f"pip download brought {filename}, which the lock does not name")
            path = os.path.join(tmp, filename)
            actual = file_digest(path, "sha256").hexdigest()
            if actual not in wanted[key]:
                again = " again" if key in refused else ""
                raise Refused(f"{filename} ({key[0]}=={key[1]}) downloaded{again} has sha256 {actual}, which is not "
                              f"one the lock {os.path.basename(lock)} allows: not installed, not cached")
            os.replace(path, os.path.join(wheels, filename))
            if key in refused:
                log(f"{filename}: downloaded again, matches the lock")
            del wanted[key]
        if wanted:
            raise Refused("pip download brought no wheel for " + ", ".join(f"{n}=={v}" for n, v in wanted))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the npm package -----------------------------------------------------------------------------------------
def integrity_of(path):
    return "sha512-" + base64.b64encode(file_digest(path, "sha512").digest()).decode()


def fetch_npm(lock, cache):
    name, version, integrity = extra_pin(lock, "npm")
    os.makedirs(cache, exist_ok=True)
    target = os.path.join(cache, f"{name}-{version}.tgz")
    again = False
    if os.path.exists(target):
        actual = integrity_of(target)
        if actual == integrity:
            return target
        log(f"REFUSED cached {target}: its integrity {actual} is not the lock's {integrity} for "
            f"{name}@{version}; removed, downloading it again")
        os.remove(target)
        again = True
    log(f"fetching {name}@{version} (npm pack, no install script)")
    tmp = tempfile.mkdtemp(prefix=".download-", dir=cache)
    try:
        # A private npm cache: the download is a real one, not npm's cached copy.
        done = subprocess.run(["npm", "pack", "--silent", "--cache", os.path.join(tmp, "npm-cache"),
                               f"{name}@{version}"], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        packed = glob.glob(os.path.join(tmp, "*.tgz"))
        if done.returncode != 0 or len(packed) != 1:
            raise Refused(f"npm pack {name}@{version} failed (exit {done.returncode}):\n{done.stdout.strip()}")
        actual = integrity_of(packed[0])
        if actual != integrity:
            raise Refused(f"{os.path.basename(target)} ({name}@{version}) downloaded{' again' if again else ''} "
                          f"has integrity {actual}, not the lock's {integrity}: not used, not cached")
        os.replace(packed[0], target)
        if again:
            log(f"{os.path.basename(target)}: downloaded again, matches the lock")
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fetch_deb(lock, cache):
    suite, name, version, arch, digest = extra_pin(lock, "deb")
    expected = digest.split(":", 1)[1]
    debs = os.path.join(cache, f"apt-{suite}", "debs")
    os.makedirs(debs, exist_ok=True)
    target = os.path.join(debs, f"{name}_{version.replace(':', '%3a')}_{arch}.deb")
    again = False
    if os.path.exists(target):
        actual = file_digest(target, "sha256").hexdigest()
        if actual == expected:
            return target
        log(f"REFUSED cached {target}: sha256 {actual} is not the lock's {expected} for {name} {version}; "
            f"removed, downloading it again")
        os.remove(target)
        again = True
    log(f"fetching {name} {version} from {suite} (private apt configuration)")
    _, options = private_apt(cache, suite)
    tmp = tempfile.mkdtemp(prefix=".download-", dir=debs)
    try:
        done = subprocess.run(["apt-get", *options, "download", f"{name}:{arch}={version}"], cwd=tmp,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        got = glob.glob(os.path.join(tmp, "*.deb"))
        if done.returncode != 0 or len(got) != 1:
            raise Refused(f"apt-get download {name}={version} from {suite} failed (exit {done.returncode}):\n"
                          f"{done.stdout.strip()}")
        actual = file_digest(got[0], "sha256").hexdigest()
        if actual != expected:
            raise Refused(f"{os.path.basename(target)} ({name} {version}) downloaded{' again' if again else ''} "
                          f"has sha256 {actual}, not the lock's {expected}: not used, not cached")
        os.replace(got[0], target)
        if again:
            log(f"{os.path.basename(target)}: downloaded again, matches the lock")
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("wheels", "npm", "deb"):
        p = sub.add_parser(command)
        p.add_argument("lock")
        p.add_argument("--cache", required=True)
        if command == "wheels":
            p.add_argument("--python", required=True)
    p = sub.add_parser("lock")
    p.add_argument("--root", required=True)
    p.add_argument("--uv", required=True)
    p.add_argument("--upgrade", action="store_true")
    p.add_argument("--cache", default=os.environ.get("NNX_CACHE")
                   or os.path.join(os.path.expanduser("~"), ".cache", "nnx-conformance"))
    args = parser.parse_args(argv)
    try:
        if args.command == "wheels":
            fetch_wheels(args.lock, args.cache, args.python)
        elif args.command == "npm":
            print(fetch_npm(args.lock, args.cache))
        elif args.command == "deb":
            print(fetch_deb(args.lock, args.cache))
        else:
            import make_lock  # beside this script; imported only when asked for, as before

            make_lock.make_lock(os.path.abspath(args.root), args.uv, args.upgrade, args.cache)
    except Refused as e:
        log(f"FAILED: {e}")
        return 1
    except subprocess.CalledProcessError as e:
        log(f"FAILED: {' '.join(map(str, e.cmd))} exited {e.returncode}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
