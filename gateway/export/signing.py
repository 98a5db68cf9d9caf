"""The Ed25519 key that signs export manifests and chain checkpoints, and signature checks for verifiers.

The private key is a PKCS#8 PEM file (0600), created once on first use; replicas must share it. Its key id is
the first 16 bytes of SHA-256 over the raw public key, in hex, so a manifest names the key it needs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


def key_id_of(public_key: Ed25519PublicKey) -> str:
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:32]


def public_key_pem(public_key: Ed25519PublicKey) -> str:
    return public_key.public_bytes(serialization.Encoding.PEM,
                                   serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def load_public_key(data: bytes) -> Ed25519PublicKey:
    """The key from a PEM file, or from the JSON document ``GET /admin/v1/audit/public-key`` answers with.

    A JSON document's ``key_id``, when present, must be the key's own id: a hand-edited file that pairs one key's
    PEM with another's id is refused rather than trusted by either half.
    """
    text = data.lstrip()
    if text.startswith(b"{"):
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"public key file is neither PEM nor JSON: {exc}") from exc
        pem = document.get("public_key_pem") if isinstance(document, dict) else None
        if not isinstance(pem, str):
            raise ValueError("public key JSON has no \"public_key_pem\" string")
        key = load_public_key(pem.encode())
        claimed = document.get("key_id")
        if claimed is not None and claimed != key_id_of(key):
            raise ValueError("public key JSON names a key_id that is not its key's id")
        return key
    loaded = serialization.load_pem_public_key(data)
    if not isinstance(loaded, Ed25519PublicKey):
        raise ValueError("not an Ed25519 public key")
    return loaded


def signature_valid(public_key: Ed25519PublicKey, message: bytes, signature_b64: str) -> bool:
    try:
        public_key.verify(base64.b64decode(signature_b64, validate=True), message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True, slots=True)
class Signer:
    private_key: Ed25519PrivateKey

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self.private_key.public_key()

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_key)

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self.private_key.sign(message)).decode("ascii")


def load_or_create_signer(path: Path) -> Signer:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another worker may be between its create and its write
            data = path.read_bytes()
            if data.strip():
                key = serialization.load_pem_private_key(data, password=None)
                if not isinstance(key, Ed25519PrivateKey):
                    raise ValueError(f"{path} is not an Ed25519 private key") from None
                return Signer(key)
            time.sleep(0.05)
        raise RuntimeError(f"{path} is empty; delete it to generate a new export signing key") from None
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
        f.flush()
        os.fsync(f.fileno())
    return Signer(key)
