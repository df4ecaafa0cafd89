#!/usr/bin/env python3
"""Fetches the ONNX Runtime libraries of the runtime matrix into the cache, each checked against its package.

    fetch_runtimes.py --lock scripts/runtimes.lock --cache DIR [VERSION...]

Takes every line of the lock (or only the VERSIONs named, each of which must be in the lock) and leaves
DIR/runtimes/<version>/libonnxruntime.so.<version>. A PyPI wheel is downloaded with pip (--no-deps, binary
only, never built or installed), its sha256 compared with the lock, and only the library is read out of it
(from onnxruntime-openvino, the library beside the OpenVINO execution provider and OpenVINO's CPU device:
OPENVINO_MEMBERS), each file checked against the sha256 that the wheel's own RECORD gives for it. An npm package is fetched with
`npm pack` (no install script runs), its sha512 compared with npm's published integrity in the lock, and
only the library is read out of the tarball. Idempotent: a library already in the cache is re-hashed
against the package it came from (kept beside it) and reused. Standard library only.
"""
import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

from lock_file import file_digest as digest  # one streaming hash for both fetchers (scripts/)

PIP_PLATFORM = ["--only-binary=:all:", "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
                "--implementation", "cp"]


class Refused(Exception):
    """A package or library that is not what the lock names, or a download that failed."""


def log(message):
    print(f"fetch_runtimes: {message}", file=sys.stderr)


def read_lock(path):
    pins = {}
    with open(path, encoding="utf-8") as lock:
        for number, line in enumerate(lock, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 5 or fields[1] not in ("pypi", "npm"):
                raise Refused(f"{path}:{number}: expected VERSION pypi|npm PACKAGE FILE INTEGRITY, got {line!r}")
            version, source, package, filename, integrity = fields
            pins[version] = {"source": source, "package": package, "file": filename, "integrity": integrity}
    return pins


def package_matches(path, integrity):
    if not os.path.isfile(path):
        return False
    if integrity.startswith("sha256:"):
        return digest(path, "sha256").hexdigest() == integrity[len("sha256:"):]
    if integrity.startswith("sha512-"):
        return "sha512-" + base64.b64encode(digest(path, "sha512").digest()).decode() == integrity
    raise Refused(f"unknown integrity form {integrity!r}")


def download(version, pin, folder):
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, pin["file"])
    if package_matches(target, pin["integrity"]):
        return target
    if os.path.exists(target):
        log(f"{target} does not match the lock; fetching it again")
        os.remove(target)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        if pin["source"] == "pypi":
            command = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                       "--no-cache-dir", *PIP_PLATFORM, f"{pin['package']}=={version}", "-d", scratch]
        else:
            command = ["npm", "pack", "-q", "--ignore-scripts", f"{pin['package']}@{version}",
                       "--pack-destination", scratch]
        log(f"fetching {pin['package']} {version} ({pin['source']})")
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise Refused(f"{' '.join(command[:4])} ... failed (exit {done.returncode}):\n{done.stdout.strip()}")
        fetched = os.path.join(scratch, pin["file"])
        if not package_matches(fetched, pin["integrity"]):
            raise Refused(f"{pin['file']} as downloaded does not match the lock's {pin['integrity']}")
        os.replace(fetched, target)
    return target


# What a wheel's onnxruntime/capi/ gives the cache: the library alone, or for onnxruntime-openvino the library with
# the OpenVINO execution provider and the part of OpenVINO its CPU device loads (ONNX Runtime opens the provider
# libraries from the folder of the library it was opened as; OpenVINO its plugins from its own folder). The
# Python module, the GPU and NPU plugins and the duplicate unversioned names are left out.
OPENVINO_MEMBERS = [r"libonnxruntime_providers_shared\.so", r"libonnxruntime_providers_openvino\.so",
                    r"libopenvino\.so\.\d{4}", r"libopenvino_onnx_frontend\.so\.\d{4}",
                    r"libopenvino_intel_cpu_plugin\.so", r"libtbb\.so\.\d+", r"libtbbmalloc\.so(\.\d+)?"]


def wheel_members(names, package, version):
    wanted = [f"libonnxruntime\\.so\\.{re.escape(version)}"]
    if package == "onnxruntime-openvino":
        wanted += OPENVINO_MEMBERS
    found = [n for n in names if n.startswith("onnxruntime/capi/")
             and any(re.fullmatch(w, n[len("onnxruntime/capi/"):]) for w in wanted)]
    if len(found) < len(wanted):
        raise Refused(f"the {package} wheel lacks some of onnxruntime/capi/ {', '.join(wanted)} (found: {', '.join(found)})")
    return found


def libraries_from_wheel(wheel, version, package):
    """{file name: bytes} of the wheel's members the cache keeps, each checked against the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as archive:
        record_name = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        if record_name is None:
            raise Refused(f"{wheel} has no RECORD")
        expected = {}
        for row in archive.read(record_name).decode().splitlines():
            parts = row.rsplit(",", 2)
            if len(parts) == 3 and parts[1].startswith("sha256="):
                expected[parts[0]] = parts[1][len("sha256="):]
        out = {}
        for member in wheel_members(archive.namelist(), package, version):
            if member not in expected:
                raise Refused(f"{wheel} holds no {member} in its RECORD")
            data = archive.read(member)
            actual = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
            if actual != expected[member]:
                raise Refused(f"{member} of {wheel} does not match its RECORD (sha256={expected[member]})")
            out[member.rsplit("/", 1)[1]] = data
    return out


def library_from_npm(tgz, version):
    # bin/napi-v3/... holds libonnxruntime.so.X.Y.Z up to about 1.2x; later packages hold bin/napi-v6/... .so.1.
    with tarfile.open(tgz, "r:gz") as archive:
        members = {m.name: m for m in archive.getmembers()}
        wanted = [n for n in members if n.startswith("package/bin/napi-v") and "/linux/x64/" in n
                  and n.rsplit("/", 1)[1] in (f"libonnxruntime.so.{version}", "libonnxruntime.so.1")]
        wanted.sort(key=lambda n: not n.endswith(version))
        for name in wanted:
            entry = members[name]
            if entry.issym():
                entry = members.get(os.path.normpath(os.path.join(os.path.dirname(name), entry.linkname)))
            if entry is not None and entry.isfile():
                return archive.extractfile(entry).read()
        raise Refused(f"{tgz} holds no package/bin/napi-v*/linux/x64/libonnxruntime.so.{version} (or .so.1)")


def fetch(version, pin, cache):
    packages = os.path.join(cache, "runtimes", "packages")
    package = download(version, pin, packages)
    folder = os.path.join(cache, "runtimes", version)
    library = os.path.join(folder, f"libonnxruntime.so.{version}")
    files = (libraries_from_wheel(package, version, pin["package"]) if pin["source"] == "pypi"
             else {os.path.basename(library): library_from_npm(package, version)})
    os.makedirs(folder, exist_ok=True)
    for name in sorted(files, key=lambda n: n == os.path.basename(library)):  # the library itself last
        path = os.path.join(folder, name)
        data = files[name]
        if os.path.isfile(path) and digest(path, "sha256").digest() == hashlib.sha256(data).digest():
            continue
        partial = path + ".partial"
        with open(partial, "wb") as out:
            out.write(data)
        os.chmod(partial, 0o755)
        os.replace(partial, path)
    return library


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("versions", nargs="*")
    args = parser.parse_args(argv)
    try:
        pins = read_lock(args.lock)
        wanted = args.versions or list(pins)
        unknown = [v for v in wanted if v not in pins]
        if unknown:
            raise Refused(f"{', '.join(unknown)} not in {args.lock} (known: {' '.join(pins)}); add a pinned line first")
        for version in wanted:
            print(fetch(version, pins[version], args.cache))
    except Refused as refusal:
        log(str(refusal))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
