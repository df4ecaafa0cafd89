"""The lock's format, read by scripts/fetch_locked.py (which checks the cache against it) and written by
scripts/make_lock.py (`make lock`): pip's hash-pinned requirements, its "#@" lines for what comes from
outside PyPI, uv's output split into one block per pin, the platform and Python the lock is resolved for,
the streaming hash every check compares with it, and `Refused`, the one failure both report. Standard
library only, run with the system's python3; it imports no other script of scripts/.
"""
import hashlib
import re
import sys

PLATFORM = ["--python-version", "3.11", "--python-platform", "x86_64-manylinux_2_28"]


class Refused(Exception):
    """A file that is not what the lock names, or a download that could not be made."""


def log(message):
    """A line on stderr in the voice of scripts/fetch_locked.py, the command both scripts run under."""
    print(f"fetch_locked: {message}", file=sys.stderr, flush=True)


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def file_digest(path, algorithm):
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest


# --- the lock ----------------------------------------------------------------------------------------------
def read_lock(path):
    """(pins, extra): pins = [(name, version, {sha256 hex})] in lock order; extra = [fields of each #@ line]."""
    pins, extra, logical = [], [], ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#@"):
                extra.append(line[2:].split())
                continue
            stripped = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            if stripped.endswith("\\"):
                logical += stripped[:-1] + " "
                continue
            logical += stripped
            if logical.strip():
                pins.append(parse_pin(logical.strip(), path))
            logical = ""
    if logical.strip():
        pins.append(parse_pin(logical.strip(), path))
    return pins, extra


def parse_pin(text, path):
    match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", text)
    if not match:
        raise Refused(f"{path}: not a hash-pinned requirement: {text[:120]}")
    hashes = set(re.findall(r"--hash=sha256:([0-9a-f]{64})", match.group(3)))
    return normalize(match.group(1)), match.group(2), hashes


def read_extra(path):
    """The fields of every "#@" line of `path` (a lock or requirements.in)."""
    with open(path, encoding="utf-8") as f:
        return [line[2:].split() for line in f if line.startswith("#@")]


def extra_pin(path, kind):
    extra = read_extra(path)
    found = [fields[1:] for fields in extra if fields and fields[0] == kind]
    if len(found) != 1:
        raise Refused(f"{path} holds {len(found)} '#@ {kind}' lines, not one: run `make lock`")
    return found[0]


# --- uv's output, pin by pin (scripts/make_lock.py keeps or drops whole blocks) ------------------------------
def blocks(text):
    """The uv output as [(normalized name or None, block text)]: one block per pin with its comments."""
    result, current, name = [], [], None
    for line in text.splitlines(keepends=True):
        if line and not line[0].isspace() and not line.startswith("#"):
            if current:
                result.append((name, "".join(current)))
            current, name = [], normalize(re.split(r"[=<>!~;\s\[]", line, maxsplit=1)[0])
        current.append(line)
    if current:
        result.append((name, "".join(current)))
    return result
