"""Validating an admin bearer JWT: header rules, signature against the issuer's JWKS, registered claims, roles.

Refused (each an ``InvalidToken``, a 401 at the edge): anything but a compact JWS; ``alg`` outside the
configured asymmetric allow-list (so ``none`` and HMAC, the algorithm-confusion vector, never verify); headers
that try to supply a key (``jwk``, ``jku``, ``x5u``, ``x5c``) or demand extensions (``crit``); a bad signature;
a wrong ``iss`` or ``aud``; a missing or past ``exp``; ``nbf``/``iat`` in the future (beyond the clock skew);
no subject; no known role; a tenant-admin without a tenant.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Callable
from typing import Any

from joserfc import jwt
from joserfc.errors import ClaimError, JoseError
from joserfc.jwt import JWTClaimsRegistry

from gateway.adminauth.issuer_keys import JwksSource, KeySourceError
from gateway.adminauth.roles import AdminPrincipal, Role

ASYMMETRIC_ALGORITHMS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                                   "ES256", "ES384", "ES512", "EdDSA", "Ed25519"})
FORBIDDEN_HEADERS = ("jwk", "jku", "x5u", "x5c", "crit")
MAX_TOKEN_BYTES = 8192


class InvalidToken(Exception):
    """Why a token was refused (safe to show the caller: it names the check, never key material)."""


def _segment_json(segment: str) -> Any:
    try:
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise InvalidToken("malformed token") from exc


def _roles(value: Any) -> frozenset[Role]:
    names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return frozenset(Role(name) for name in names if isinstance(name, str) and name in Role._value2member_map_)


class TokenValidator:
    def __init__(self, keys: JwksSource, *, issuer: str, audience: str, algorithms: list[str],
                 roles_claim: str = "warden_roles", tenant_claim: str = "warden_tenant", leeway_s: int = 30,
                 now: Callable[[], int] | None = None) -> None:
        unsafe = set(algorithms) - ASYMMETRIC_ALGORITHMS
        if unsafe or not algorithms:
            raise ValueError(f"admin JWT algorithms must be asymmetric signature algorithms, not {sorted(unsafe)}")
        self._keys = keys
        self._issuer, self._audience = issuer, audience
        self._algorithms = list(algorithms)
        self._roles_claim, self._tenant_claim = roles_claim, tenant_claim
        self._leeway_s = leeway_s
        self._now = now or (lambda: int(time.time()))

    def _check_header(self, token: str) -> dict[str, Any]:
        if len(token) > MAX_TOKEN_BYTES:
            raise InvalidToken("token too large")
        parts = token.split(".")
        if len(parts) != 3 or not all(parts[:2]):
            raise InvalidToken("malformed token (expected a signed JWT)")
        header = _segment_json(parts[0])
        if not isinstance(header, dict):
            raise InvalidToken("malformed token header")
        alg = header.get("alg")
        if alg not in self._algorithms:
            raise InvalidToken(f"token algorithm {alg!r} is not accepted")
        for name in FORBIDDEN_HEADERS:
            if name in header:
                raise InvalidToken(f"token header '{name}' is not accepted (keys come only from the issuer's JWKS)")
        if "kid" in header and not isinstance(header["kid"], str):
            raise InvalidToken("malformed token header (kid)")
        return header

    def _claims(self, token: str, header: dict[str, Any]) -> dict[str, Any]:
        try:
            key_set = self._keys.key_set(header.get("kid"))
        except KeySourceError as exc:
            raise InvalidToken("admin token keys are unavailable") from exc
        try:
            decoded = jwt.decode(token, key_set, algorithms=self._algorithms)
        except JoseError as exc:
            raise InvalidToken(f"token signature not verified ({exc.error})") from exc
        registry = JWTClaimsRegistry(
            now=self._now, leeway=self._leeway_s,
            iss={"essential": True, "value": self._issuer},
            aud={"essential": True, "value": self._audience},
            exp={"essential": True},
            sub={"essential": True},
        )
        try:
            registry.validate(decoded.claims)
        except ClaimError as exc:
            raise InvalidToken(f"token claim '{exc.claim}' refused: {exc.description}") from exc
        except JoseError as exc:
            raise InvalidToken(f"token claims refused: {exc.description or exc.error}") from exc
        return decoded.claims

    def validate(self, token: str) -> AdminPrincipal:
        header = self._check_header(token)
        claims = self._claims(token, header)
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject:
            raise InvalidToken("token subject missing")
        roles = _roles(claims.get(self._roles_claim))
        if not roles:
            raise InvalidToken(f"token carries no Warden role in '{self._roles_claim}'")
        tenant = claims.get(self._tenant_claim)
        if tenant is not None and not isinstance(tenant, str):
            raise InvalidToken(f"token claim '{self._tenant_claim}' must be a string")
        if Role.TENANT_ADMIN in roles and not tenant:
            raise InvalidToken(f"a tenant-admin token needs the '{self._tenant_claim}' claim")
        return AdminPrincipal(subject=subject, issuer=self._issuer, roles=roles, tenant_id=tenant)
