"""Credentials shaped exactly as their issuers shape them, with random secret material.

AWS access key ids and secret keys, GitHub tokens (with the CRC32 checksum GitHub appends), GitLab personal access
tokens, Slack bot and user tokens, PEM private key blocks (real keys derived from random bytes, so they parse),
HS256 JWTs (signed) and generic high-entropy values written as ``api_key=...``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string
import zlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

ALNUM = string.ascii_letters + string.digits
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
# Values that contain a line break: only contexts that can hold one raw (prose, chat, code) take them.
MULTILINE_SUBTYPES = frozenset({"secret:pem-ec", "secret:pem-pkcs8-ec", "secret:pem-pkcs8-ed25519"})


def _random(rng: random.Random, alphabet: str, count: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(count))


def _base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, rest = divmod(number, 62)
        digits = BASE62[rest] + digits
    return digits.rjust(width, "0")


def github_token(rng: random.Random) -> str:
    """``ghp_`` (or gho_/ghu_/ghs_/ghr_) + 30 random base62 characters + their CRC32 in 6 base62 characters."""
    body = _random(rng, ALNUM, 30)
    return f"{rng.choice(['ghp', 'gho', 'ghu', 'ghs', 'ghr'])}_{body}{_base62(zlib.crc32(body.encode()), 6)}"


def github_token_checksum_ok(token: str) -> bool:
    body, checksum = token[4:-6], token[-6:]
    return _base62(zlib.crc32(body.encode()), 6) == checksum


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _compact_json(claims: dict) -> bytes:
    return json.dumps(claims, separators=(",", ":")).encode()


def jwt(rng: random.Random) -> str:
    header = {"alg": "HS256", "typ": "JWT"}
    payload = {"sub": str(rng.randint(10**6, 10**9)), "iat": rng.randint(1_600_000_000, 1_800_000_000),
               "scope": rng.choice(["read", "read write", "admin"])}  # fmt: skip
    signing_input = f"{_b64url(_compact_json(header))}.{_b64url(_compact_json(payload))}"
    key = rng.randbytes(32)
    return f"{signing_input}.{_b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())}"


def pem_private_key(rng: random.Random, form: str) -> str:
    key: ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey
    if form == "pkcs8-ed25519":
        key = ed25519.Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
        encoding = serialization.PrivateFormat.PKCS8
    else:
        curve = ec.SECP256R1()
        key = ec.derive_private_key(rng.randrange(1, 2**255), curve)
        pkcs8 = form == "pkcs8-ec"
        encoding = serialization.PrivateFormat.PKCS8 if pkcs8 else serialization.PrivateFormat.TraditionalOpenSSL
    pem = key.private_bytes(serialization.Encoding.PEM, encoding, serialization.NoEncryption()).decode()
    return pem.strip()


def _make(subtype: str, rng: random.Random) -> str:
    if subtype == "secret:aws-access-key-id":
        return rng.choice(["AKIA", "ASIA"]) + _random(rng, string.ascii_uppercase + "234567", 16)
    if subtype == "secret:aws-secret-access-key":
        return _random(rng, ALNUM + "/+", 40)
    if subtype == "secret:github":
        return github_token(rng)
    if subtype == "secret:github-fine-grained":
        return f"github_pat_{_random(rng, ALNUM, 22)}_{_random(rng, ALNUM, 59)}"
    if subtype == "secret:gitlab":
        return f"glpat-{_random(rng, ALNUM + '-_', 20)}"
    if subtype == "secret:slack":
        kind = rng.choice(["xoxb", "xoxp"])
        tail = _random(rng, ALNUM, 24) if kind == "xoxb" else _random(rng, string.hexdigits.lower()[:16], 32)
        middle = f"{rng.randint(10**10, 10**13)}" + (f"-{rng.randint(10**10, 10**13)}" if kind == "xoxp" else "")
        return f"{kind}-{rng.randint(10**10, 10**13)}-{middle}-{tail}"
    if subtype == "secret:jwt":
        return jwt(rng)
    if subtype == "secret:generic":
        return _random(rng, ALNUM, rng.choice([32, 40, 48])) if rng.random() < 0.6 else rng.randbytes(24).hex()
    if subtype in MULTILINE_SUBTYPES:
        return pem_private_key(rng, subtype.removeprefix("secret:pem-"))
    raise ValueError(subtype)


SUBTYPES = ("secret:aws-access-key-id", "secret:aws-secret-access-key", "secret:github", "secret:github-fine-grained",
            "secret:gitlab", "secret:slack", "secret:jwt", "secret:generic", *sorted(MULTILINE_SUBTYPES))  # fmt: skip


def secret(rng: random.Random, split: str, multiline: bool = True) -> Pii:
    subtype = rng.choice([s for s in SUBTYPES if multiline or s not in MULTILINE_SUBTYPES])
    return Pii("SECRET", draw_in_split(lambda: _make(subtype, rng), split), subtype)
