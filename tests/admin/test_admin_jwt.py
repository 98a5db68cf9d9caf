"""Admin token validation against an OIDC issuer's JWKS: what verifies, and every forgery that must not."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from admin_support import b64url, unsigned_token
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey

from gateway.adminauth.issuer_keys import JwksSource
from gateway.adminauth.roles import Role
from gateway.adminauth.validator import InvalidToken, TokenValidator

ISSUER = "https://idp.example.test/realms/warden"
AUDIENCE = "warden-admin"


@pytest.fixture(scope="module")
def issuer_key() -> RSAKey:
    return RSAKey.generate_key(2048, private=True, auto_kid=True)


@pytest.fixture(scope="module")
def attacker_key() -> RSAKey:
    return RSAKey.generate_key(2048, private=True, auto_kid=True)


def _public_jwks(*keys: RSAKey | ECKey) -> dict[str, Any]:
    return {"keys": [k.as_dict(private=False) for k in keys]}


@pytest.fixture
def validator(issuer_key: RSAKey) -> TokenValidator:
    keys = KeySet.import_key_set(_public_jwks(issuer_key))
    return TokenValidator(JwksSource(static=keys), issuer=ISSUER, audience=AUDIENCE,
                          algorithms=["RS256", "ES256"], leeway_s=5)


def _claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice@example.test", "iat": now,
                              "nbf": now, "exp": now + 300, "warden_roles": ["platform-admin"]}
    claims.update(overrides)
    return {k: v for k, v in claims.items() if v is not None}


def _sign(key: RSAKey, claims: dict[str, Any], **header: Any) -> str:
    return jwt.encode({"alg": "RS256", "kid": key.kid, **header}, claims, key)


def test_a_token_from_the_issuer_is_accepted(validator: TokenValidator, issuer_key: RSAKey) -> None:
    principal = validator.validate(_sign(issuer_key, _claims()))
    assert principal.subject == "alice@example.test" and principal.roles == {Role.PLATFORM_ADMIN}
    admin = validator.validate(_sign(issuer_key, _claims(warden_roles="tenant-admin", warden_tenant="t-1")))
    assert admin.roles == {Role.TENANT_ADMIN} and admin.tenant_id == "t-1"
    # Audience may be a list that contains ours.
    assert validator.validate(_sign(issuer_key, _claims(aud=["other", AUDIENCE]))).subject


# Callables: times are computed when the test runs, not at collection (the suite may run for many minutes).
@pytest.mark.parametrize(("make_claims", "reason"), [
    (lambda: _claims(iss="https://evil.example.test"), "iss"),
    (lambda: _claims(aud="someone-else"), "aud"),
    (lambda: _claims(exp=int(time.time()) - 120), "expired"),
    (lambda: _claims(exp=None), "exp"),
    (lambda: _claims(nbf=int(time.time()) + 600), "nbf"),
    (lambda: _claims(iat=int(time.time()) + 600), "iat"),
    (lambda: _claims(sub=None), "sub"),
    (lambda: _claims(warden_roles=["root"]), "role"),
    (lambda: _claims(warden_roles=None), "role"),
    (lambda: _claims(warden_roles=["tenant-admin"]), "tenant"),
], ids=["wrong-iss", "wrong-aud", "expired", "no-exp", "nbf-future", "iat-future", "no-sub", "unknown-role",
        "no-role", "tenant-admin-without-tenant"])
def test_claims_are_enforced(validator: TokenValidator, issuer_key: RSAKey, make_claims: Any, reason: str) -> None:
    with pytest.raises(InvalidToken, match=reason):
        validator.validate(_sign(issuer_key, make_claims()))


def test_alg_none_is_refused(validator: TokenValidator) -> None:
    with pytest.raises(InvalidToken, match="algorithm 'none'"):
        validator.validate(unsigned_token(_claims()))
    with pytest.raises(InvalidToken):
        validator.validate(unsigned_token(_claims()) + "c2ln")  # none with some bytes as a "signature"


def test_hs256_signed_with_the_public_key_is_refused(validator: TokenValidator, issuer_key: RSAKey) -> None:
    """Algorithm confusion: an attacker HMACs a token with the issuer's *public* key as the secret."""
    public_pem = issuer_key.as_pem(private=False)
    for secret in (public_pem, json.dumps(issuer_key.as_dict(private=False)).encode()):
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": issuer_key.kid}).encode())
        body = b64url(json.dumps(_claims()).encode())
        signature = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
        with pytest.raises(InvalidToken, match="HS256"):
            validator.validate(f"{header}.{body}.{b64url(signature)}")


def test_hmac_algorithms_cannot_be_configured(issuer_key: RSAKey) -> None:
    keys = KeySet.import_key_set(_public_jwks(issuer_key))
    for algorithms in (["HS256"], ["RS256", "none"], []):
        with pytest.raises(ValueError):
            TokenValidator(JwksSource(static=keys), issuer=ISSUER, audience=AUDIENCE, algorithms=algorithms)


def test_keys_named_by_the_token_are_never_used(validator: TokenValidator, attacker_key: RSAKey) -> None:
    claims = _claims()
    attacker_jwk = attacker_key.as_dict(private=False)
    forgeries = [
        _sign(attacker_key, claims, jwk=attacker_jwk),  # embedded key
        _sign(attacker_key, claims, jku="https://attacker.example.test/jwks.json"),  # key URL
        _sign(attacker_key, claims, x5u="https://attacker.example.test/cert.pem"),
        _sign(attacker_key, claims),  # attacker's kid: not in the issuer's JWKS
    ]
    for token in forgeries:
        with pytest.raises(InvalidToken):
            validator.validate(token)


def test_tampered_claims_or_signature_are_refused(validator: TokenValidator, issuer_key: RSAKey) -> None:
    token = _sign(issuer_key, _claims(warden_roles=["auditor"]))
    head, _body, signature = token.split(".")
    escalated = b64url(json.dumps(_claims(warden_roles=["platform-admin"])).encode())
    with pytest.raises(InvalidToken, match="signature"):
        validator.validate(f"{head}.{escalated}.{signature}")
    with pytest.raises(InvalidToken):
        validator.validate(f"{head}.{_body}.{signature[:-4]}AAAA")
    for garbage in ("", "a.b", "not-a-jwt", "a.b.c.d.e", "e30.e30.", "x" * 9000):
        with pytest.raises(InvalidToken):
            validator.validate(garbage)


class _JwksHandler(BaseHTTPRequestHandler):
    jwks: ClassVar[dict[str, Any]] = {"keys": []}
    fetches: ClassVar[int] = 0

    def do_GET(self) -> None:
        type(self).fetches += 1
        body = json.dumps(type(self).jwks).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def jwks_server() -> Iterator[tuple[str, type[_JwksHandler]]]:
    handler = type("Handler", (_JwksHandler,), {"jwks": {"keys": []}, "fetches": 0})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/jwks.json", handler
    finally:
        server.shutdown()
        server.server_close()


def test_jwks_from_the_issuer_url_follows_key_rotation(jwks_server: tuple[str, type[_JwksHandler]],
                                                       issuer_key: RSAKey, monkeypatch: pytest.MonkeyPatch) -> None:
    url, handler = jwks_server
    handler.jwks = _public_jwks(issuer_key)
    validator = TokenValidator(JwksSource(url=url, ttl_s=3600), issuer=ISSUER, audience=AUDIENCE,
                               algorithms=["RS256", "ES256"])
    assert validator.validate(_sign(issuer_key, _claims())).subject
    assert validator.validate(_sign(issuer_key, _claims())).subject
    assert handler.fetches == 1  # cached

    # The issuer rotates to a new EC key: a token with the new kid triggers one refetch (rate-limited).
    new_key = ECKey.generate_key("P-256", private=True, auto_kid=True)
    handler.jwks = _public_jwks(issuer_key, new_key)
    monkeypatch.setattr("gateway.adminauth.issuer_keys.MIN_REFETCH_INTERVAL_S", 0.0)
    token = jwt.encode({"alg": "ES256", "kid": new_key.kid}, _claims(), new_key)
    assert validator.validate(token).subject
    assert handler.fetches == 2


def test_jwks_file_private_members_are_dropped(tmp_path: Path, issuer_key: RSAKey) -> None:
    """A JWKS file that (by mistake) holds the private key is still only used to verify."""
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [issuer_key.as_dict(private=True)]}))
    validator = TokenValidator(JwksSource(file=path), issuer=ISSUER, audience=AUDIENCE, algorithms=["RS256"])
    assert validator.validate(_sign(issuer_key, _claims())).subject
    source = JwksSource(file=path)
    assert all(not key.is_private for key in source.key_set(None).keys)


def test_unreachable_jwks_refuses_every_token(issuer_key: RSAKey) -> None:
    validator = TokenValidator(JwksSource(url="http://127.0.0.1:9/jwks.json", timeout_s=0.5), issuer=ISSUER,
                               audience=AUDIENCE, algorithms=["RS256"])
    with pytest.raises(InvalidToken, match="unavailable"):
        validator.validate(_sign(issuer_key, _claims()))
