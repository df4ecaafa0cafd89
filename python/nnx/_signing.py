"""Signed documents (doc/record-format.md, "Signed documents"): a detached OpenSSH signature (SSHSIG,
Ed25519, namespace ``nnx-conformance``) beside a report or runtime matrix, ``<document>.sig``, made with a key
the user holds and checkable without this package (``ssh-keygen -Y verify``). The document's bytes are the
same signed or not; the private key is read, used and never written anywhere."""

from __future__ import annotations

from typing import Optional

from . import _core
from ._boundary import PathLike, _path

#: The SSHSIG namespace of every signature this package writes (``ssh-keygen -Y verify -n``).
SIGNATURE_NAMESPACE = "nnx-conformance"


def generate_key(path: PathLike, *, comment: str = "nnx-conformance") -> None:
    """Write a new Ed25519 key pair: ``path`` (an OpenSSH private key file without passphrase, mode 0600) and
    ``path.pub``, as ``nnx-conformance keygen --out PATH``. A key made by ``ssh-keygen -t ed25519 -N ''``
    serves as well. An existing file is never replaced (:class:`UsageError`)."""
    _core.write_key_pair(_path(path, "path"), str(comment))


def sign_document(document: PathLike, key: PathLike) -> None:
    """Write ``<document>.sig`` atomically: the SSHSIG signature of the file's exact bytes with the private key
    file ``key`` (an unusable key is a :class:`UsageError` naming the problem)."""
    _core.sign_document(_path(document, "document"), _path(key, "key"))


def check_signature(document: PathLike, key: PathLike) -> None:
    """Refuse, with a :class:`ConformanceError` naming why, a document whose ``<document>.sig`` is missing, was
    made by another key than the public key file ``key`` (KEY.pub) or over other bytes (an edited document):
    what ``validate --key`` and ``verify --key`` check first."""
    _core.check_signature(_path(document, "document"), _path(key, "key"))


def _sign_if_asked(document: Optional[str], key: Optional[PathLike]) -> None:
    if key is not None and document is not None:
        sign_document(document, key)
