"""Signed documents (issue 42, "Evidence that cannot be edited unseen"; doc/record-format.md, "Signed
documents"): `--sign-key` writes `<document>.sig` (OpenSSH SSHSIG, Ed25519) beside a real report, the real
`ssh-keygen -Y verify` accepts it, `validate --key`/`verify --key` refuse an edited, unsigned or foreign-
signed one, and the signing key's bytes reach no file the run writes.
"""
import base64
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import BUNDLED_ORT, PINNED_SOURCE_REVISION, run_cli

NAMESPACE = "nnx-conformance"
PROFILE = "feedfwd-fp32-torchscript"

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (openssh-client) is missing")


def ssh_keygen(*args, stdin=None):
    return subprocess.run(["ssh-keygen", *map(str, args)], input=stdin, capture_output=True, timeout=60)


def signed_run(folder: Path, key: Path, *extra):
    done = run_cli("run", "--output", folder / "report.json", "--profile", PROFILE, "--quiet",
                   "--source-revision", PINNED_SOURCE_REVISION, "--sign-key", key, *extra)
    assert done.returncode == 0, done.stderr
    return folder / "report.json"


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """An ssh-keygen key (`theirs`) and one of our keygen (`ours`), each with KEY.pub beside it."""
    folder = tmp_path_factory.mktemp("keys")
    theirs = folder / "theirs"
    assert ssh_keygen("-q", "-t", "ed25519", "-N", "", "-C", "tester", "-f", theirs).returncode == 0
    ours = folder / "ours"
    done = run_cli("keygen", "--out", ours)
    assert done.returncode == 0, done.stderr
    return {"theirs": theirs, "ours": ours}


@pytest.fixture(scope="module")
def signed(tmp_path_factory, keys):
    """One real run of a tested profile signed with the ssh-keygen key: the report's path."""
    return signed_run(tmp_path_factory.mktemp("signed"), keys["theirs"])


def copy_signed(report: Path, folder: Path) -> Path:
    shutil.copyfile(report, folder / "report.json")
    shutil.copyfile(f"{report}.sig", folder / "report.json.sig")
    return folder / "report.json"


def ssh_verify(document: Path, public: Path, folder: Path):
    allowed = folder / "allowed_signers"
    allowed.write_text("signer " + public.read_text())
    with open(document, "rb") as stdin:
        return subprocess.run(["ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "signer", "-n", NAMESPACE,
                               "-s", f"{document}.sig"], stdin=stdin, capture_output=True, text=True, timeout=60)


def test_a_report_signed_with_an_ssh_keygen_key_verifies_with_ssh_keygen_and_validate(signed, keys, tmp_path):
    assert Path(f"{signed}.sig").read_text().startswith("-----BEGIN SSH SIGNATURE-----\n")
    checked = ssh_verify(signed, Path(f"{keys['theirs']}.pub"), tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f'Good "{NAMESPACE}" signature' in checked.stdout
    done = run_cli("validate", "--key", f"{keys['theirs']}.pub", signed)
    assert done.returncode == 0, done.stderr
    done = run_cli("verify", "--key", f"{keys['theirs']}.pub", signed, signed.parent / "report-artifacts")
    assert done.returncode == 0, done.stderr


def test_a_key_made_by_keygen_signs_a_run_that_ssh_keygen_verifies(keys, tmp_path):
    report = signed_run(tmp_path, keys["ours"])
    checked = ssh_verify(report, Path(f"{keys['ours']}.pub"), tmp_path)
    assert checked.returncode == 0, checked.stderr
    derived = ssh_keygen("-y", "-f", keys["ours"])  # ssh-keygen reads our private key file
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.split()[:2] == Path(f"{keys['ours']}.pub").read_bytes().split()[:2]


def test_a_signature_made_by_ssh_keygen_is_accepted_by_validate_key(signed, keys, tmp_path):
    report = tmp_path / "report.json"
    shutil.copyfile(signed, report)
    made = ssh_keygen("-Y", "sign", "-f", keys["ours"], "-n", NAMESPACE, report)  # writes report.json.sig
    assert made.returncode == 0, made.stderr
    done = run_cli("validate", "--key", f"{keys['ours']}.pub", report)
    assert done.returncode == 0, done.stderr


def test_signing_leaves_the_report_byte_identical_to_an_unsigned_run(signed, tmp_path):
    done = run_cli("run", "--output", tmp_path / "report.json", "--profile", PROFILE, "--quiet",
                   "--source-revision", PINNED_SOURCE_REVISION)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report.json").read_bytes() == signed.read_bytes()
    assert not Path(f"{tmp_path / 'report.json'}.sig").exists()


@pytest.mark.parametrize("field", ["max_abs_error", "onnxruntime"])
def test_a_signed_report_whose_number_or_version_was_edited_is_refused_by_validate_key(signed, keys, tmp_path, field):
    report = copy_signed(signed, tmp_path)
    text = report.read_text()
    if field == "max_abs_error":
        start = text.index('"max_abs_error": ') + len('"max_abs_error": ')
        end = start + min(text.index(",", start), text.index("\n", start)) - start
        edited = text[:start] + "3.0" + text[end:]
    else:
        edited = text.replace('"onnxruntime": "1.', '"onnxruntime": "9.', 1)
    assert edited != text
    report.write_text(edited)
    assert run_cli("validate", report).returncode == 0  # without the key the edit is a valid record: the threat
    done = run_cli("validate", "--key", f"{keys['theirs']}.pub", report)
    assert done.returncode == 1
    assert "does not match the document's bytes" in done.stderr
    done = run_cli("verify", "--key", f"{keys['theirs']}.pub", report, signed.parent / "report-artifacts")
    assert done.returncode == 1


def test_a_report_signed_by_another_key_or_unsigned_is_refused(signed, keys, tmp_path):
    report = copy_signed(signed, tmp_path)
    done = run_cli("validate", "--key", f"{keys['ours']}.pub", report)
    assert done.returncode == 1
    assert "signed by another key" in done.stderr
    Path(f"{report}.sig").unlink()
    done = run_cli("validate", "--key", f"{keys['theirs']}.pub", report)
    assert done.returncode == 1
    assert "is not signed: no" in done.stderr


def ssh_string(blob: bytes, offset: int):
    (length,) = struct.unpack(">I", blob[offset:offset + 4])
    return blob[offset + 4:offset + 4 + length], offset + 4 + length


def openssh_seed(private_key: Path) -> bytes:
    """The 32-byte Ed25519 seed of an unencrypted OpenSSH private key file, read without the tool."""
    body = "".join(line for line in private_key.read_text().splitlines() if not line.startswith("-----"))
    blob = base64.b64decode(body)
    at = len(b"openssh-key-v1\0")
    for _ in range(3):  # cipher, kdf, kdf options
        _, at = ssh_string(blob, at)
    _, at = ssh_string(blob, at + 4)  # the number of keys, then the public key
    section, _ = ssh_string(blob, at)
    at = 8  # the two check integers
    for _ in range(2):  # the key type, the public key
        _, at = ssh_string(section, at)
    secret, _ = ssh_string(section, at)
    assert len(secret) == 64
    return secret[:32]


def test_the_signing_key_reaches_no_file_of_the_run(keys, tmp_path):
    out = tmp_path / "out"
    report = signed_run(out, keys["theirs"], "--html", out / "report.html", "--timings", out / "timings.json")
    key_text = keys["theirs"].read_bytes()
    seed = openssh_seed(keys["theirs"])
    secrets = [key_text, seed, seed.hex().encode(), base64.b64encode(seed)[:40]]
    written = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert report in written and Path(f"{report}.sig") in written and len(written) == 5
    for path in written:
        data = path.read_bytes()
        assert not [secret for secret in secrets if secret in data], path


def test_an_unusable_signing_key_is_refused_before_anything_runs(tmp_path):
    encrypted = tmp_path / "encrypted"
    assert ssh_keygen("-q", "-t", "ed25519", "-N", "secret words", "-f", encrypted).returncode == 0
    rsa = tmp_path / "rsa"
    assert ssh_keygen("-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", rsa).returncode == 0
    for key, words in [(encrypted, "it is encrypted"), (rsa, "only ssh-ed25519"), (tmp_path / "none", "signing key: cannot open")]:
        out = tmp_path / f"out-{key.name}"
        done = run_cli("run", "--output", out / "report.json", "--profile", PROFILE, "--quiet", "--sign-key", key)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr, done.stderr
        assert not out.exists()  # refused before the run wrote anything


def test_keygen_never_replaces_a_key(keys):
    before = keys["ours"].read_bytes()
    done = run_cli("keygen", "--out", keys["ours"])
    assert done.returncode == 2
    assert "already exists" in done.stderr
    assert keys["ours"].read_bytes() == before
    assert (keys["ours"].stat().st_mode & 0o777) == 0o600


def test_matrix_and_execute_sign_what_they_write(signed, keys, tmp_path):
    root = signed.parent / "report-artifacts"
    matrix = tmp_path / "matrix.json"
    done = run_cli("matrix", signed, root, "--output", matrix, "--onnxruntime", BUNDLED_ORT, "--sign-key", keys["ours"])
    assert done.returncode == 0, done.stderr
    again = tmp_path / "again.json"
    done = run_cli("execute", signed, root, "--output", again, "--sign-key", keys["ours"])
    assert done.returncode == 0, done.stderr
    assert f"signature: {again}.sig" in done.stdout
    for document in (matrix, again):
        checked = ssh_verify(document, Path(f"{keys['ours']}.pub"), tmp_path)
        assert checked.returncode == 0, checked.stderr
        assert run_cli("validate", "--key", f"{keys['ours']}.pub", document).returncode == 0
