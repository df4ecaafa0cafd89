"""Signed documents through the Python API (python/nnx/_signing.py; doc/record-format.md, "Signed
documents"): generate_key, save_report(..., sign_key=), check_signature; the signature checks with the real
ssh-keygen and an edited number is refused. The command line's side is tests/e2e/test_signed_documents.py.
"""
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD

sys.path.insert(0, str(BUILD / "python"))

import nnx.export_conformance as ec  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (openssh-client) is missing")


def test_save_report_with_sign_key_signs_what_check_signature_and_ssh_keygen_accept(both_profiles, tmp_path):
    _, report, _ = both_profiles
    key = tmp_path / "key"
    ec.generate_key(key, comment="python")
    path = tmp_path / "report.json"
    ec.save_report(report, path, sign_key=key)
    unsigned = tmp_path / "unsigned.json"
    ec.save_report(report, unsigned)
    assert path.read_bytes() == unsigned.read_bytes()  # the signature lives beside the report, not in it
    ec.check_signature(path, f"{key}.pub")
    allowed = tmp_path / "allowed_signers"
    allowed.write_text("me " + (tmp_path / "key.pub").read_text())
    with open(path, "rb") as stdin:
        done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "me", "-n", ec.SIGNATURE_NAMESPACE,
                               "-s", f"{path}.sig"], stdin=stdin, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr

    text = path.read_text()
    edited = re.sub(r'"max_abs_error": [^,\n]+', '"max_abs_error": 3.0', text, count=1)
    assert edited != text
    path.write_text(edited)
    with pytest.raises(ec.ConformanceError, match="does not match the document's bytes"):
        ec.check_signature(path, f"{key}.pub")
    with pytest.raises(ec.UsageError, match="already exists"):
        ec.generate_key(key)
    with pytest.raises(ec.UsageError, match="not an ssh-ed25519 public key line"):
        ec.check_signature(path, key)  # the private key file where the public one goes
