"""Building the validator and the local issuer from settings, and minting local admin tokens."""

from __future__ import annotations

import time
import uuid

from joserfc import jwt
from joserfc.jwk import ECKey, KeySet

from gateway.adminauth.issuer_keys import (
    LOCAL_ALGORITHM,
    LOCAL_ISSUER,
    LOCAL_ISSUER_KEY_FILE,
    JwksSource,
    load_or_create_local_issuer_key,
)
from gateway.adminauth.roles import Role
from gateway.adminauth.validator import TokenValidator
from gateway.core.settings import Settings


def local_issuer_key(settings: Settings) -> ECKey:
    return load_or_create_local_issuer_key(settings.data_dir / LOCAL_ISSUER_KEY_FILE)


def build_validator(settings: Settings) -> TokenValidator:
    common = dict(audience=settings.admin_oidc_audience, roles_claim=settings.admin_roles_claim,
                  tenant_claim=settings.admin_tenant_claim, leeway_s=settings.admin_clock_skew_s)
    if settings.admin_local_issuer:
        public = ECKey.import_key(local_issuer_key(settings).as_dict(private=False))
        return TokenValidator(JwksSource(static=KeySet([public])), issuer=LOCAL_ISSUER,
                              algorithms=[LOCAL_ALGORITHM], **common)  # type: ignore[arg-type]
    assert settings.admin_oidc_issuer is not None
    if (settings.admin_jwks_url is None) == (settings.admin_jwks_file is None):
        raise ValueError("with WARDEN_ADMIN_OIDC_ISSUER set, set exactly one of WARDEN_ADMIN_JWKS_URL or "
                         "WARDEN_ADMIN_JWKS_FILE")
    source = JwksSource(url=settings.admin_jwks_url, file=settings.admin_jwks_file,
                        ttl_s=settings.admin_jwks_cache_ttl_s)
    return TokenValidator(source, issuer=settings.admin_oidc_issuer, algorithms=settings.admin_jwt_algorithms,
                          **common)  # type: ignore[arg-type]


def mint_local_token(settings: Settings, role: Role, *, tenant_id: str | None = None, subject: str | None = None,
                     ttl_s: int | None = None) -> str:
    """A token from the local issuer (only meaningful when no OIDC issuer is configured)."""
    if role is Role.TENANT_ADMIN and not tenant_id:
        raise ValueError("a tenant-admin token needs a tenant")
    key = local_issuer_key(settings)
    now = int(time.time())
    claims: dict[str, object] = {
        "iss": LOCAL_ISSUER, "aud": settings.admin_oidc_audience, "sub": subject or f"local:{role.value}",
        "iat": now, "nbf": now, "exp": now + (ttl_s or settings.admin_dev_token_ttl_s),
        "jti": str(uuid.uuid4()), settings.admin_roles_claim: [role.value],
    }
    if tenant_id:
        claims[settings.admin_tenant_claim] = tenant_id
    return jwt.encode({"alg": LOCAL_ALGORITHM, "kid": key.kid, "typ": "JWT"}, claims, key)
