"""A private apt configuration for one Debian suite under the cache (cache/apt-<suite>): the system's apt
sources are never changed. scripts/fetch_locked.py downloads the locked .deb through it, scripts/make_lock.py
reads the archive's SHA256 of the package it pins. Standard library only, run with the system's python3.
"""
import glob
import os
import re
import subprocess

from lock_file import Refused  # beside this module (scripts/)


def debian_mirror():
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                match = re.match(r"^URIs:\s*(\S+/debian)\s*$", line)
                if match:
                    return match.group(1)
    if os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list", encoding="utf-8", errors="replace") as f:
            for line in f:
                match = re.match(r"^deb\s+(\S+/debian)\s", line)
                if match:
                    return match.group(1)
    raise Refused("no Debian mirror found in the system's apt sources")


def private_apt(cache, suite):
    """apt-get options of a private configuration for `suite` in cache/apt-<suite>, after an update."""
    apt = os.path.join(cache, f"apt-{suite}")
    for sub in ("lists/partial", "archives/partial", "debs"):
        os.makedirs(os.path.join(apt, sub), exist_ok=True)
    with open(os.path.join(apt, "sources.list"), "w", encoding="utf-8") as f:
        f.write(f"deb {debian_mirror()} {suite} main\n")
    options = ["-o", f"Dir::Etc::sourcelist={apt}/sources.list", "-o", "Dir::Etc::sourceparts=-",
               "-o", f"Dir::State::Lists={apt}/lists", "-o", f"Dir::Cache::Archives={apt}/archives",
               "-o", f"Dir::Cache={apt}", "-o", "APT::Get::List-Cleanup=0", "-o", "APT::Sandbox::User=root"]
    done = subprocess.run(["apt-get", *options, "update", "-qq"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise Refused(f"apt-get update for {suite} failed:\n{done.stdout.strip()}")
    return apt, options
