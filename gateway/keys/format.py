"""The key string format and the secret hash. Pure functions, no I/O."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass

PREFIX = "wdn"
# No '_' in the alphabet, so "wdn_<id>_<secret>" splits unambiguously.
ALPHABET = string.ascii_letters + string.digits
KEY_ID_LENGTH = 16
SECRET_LENGTH = 40  # log2(62) * 40 ≈ 238 bits


@dataclass(frozen=True, slots=True)
class ParsedKey:
    key_id: str
    secret: str


def _random_token(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def new_key_id() -> str:
    return _random_token(KEY_ID_LENGTH)


def new_secret() -> str:
    return _random_token(SECRET_LENGTH)


def format_key(key_id: str, secret: str) -> str:
    return f"{PREFIX}_{key_id}_{secret}"


# The whole key in one match (every request's key is checked), its tokens drawn from ALPHABET.
_TOKEN = f"[{re.escape(ALPHABET)}]"
_KEY = re.compile(rf"{re.escape(PREFIX)}_({_TOKEN}{{{KEY_ID_LENGTH}}})_({_TOKEN}{{{SECRET_LENGTH}}})")


def parse_key(raw: str) -> ParsedKey | None:
    """None for anything that is not a well-formed key; never raises on hostile input."""
    match = _KEY.fullmatch(raw)
    if match is None:
        return None
    return ParsedKey(key_id=match.group(1), secret=match.group(2))


def hash_secret(pepper: bytes, key_id: str, secret: str) -> str:
    # Binding the key id into the MAC means a stored hash cannot be moved to another key row.
    return hmac.new(pepper, f"{key_id}:{secret}".encode(), hashlib.sha256).hexdigest()


def secret_matches(pepper: bytes, parsed: ParsedKey, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(pepper, parsed.key_id, parsed.secret), stored_hash)
