"""Issuing, revoking and looking up keys. Functions take the session as a keyword argument."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from gateway.core.clock import as_utc, utcnow
from gateway.keys.format import format_key, hash_secret, new_key_id, new_secret
from gateway.keys.models import ApiKey
from gateway.tenants.models import Tenant


@dataclass(frozen=True, slots=True)
class IssuedKey:
    key_id: str
    tenant_id: str
    api_key: str  # shown once; only its hash is stored


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """What authentication needs to know about a key; safe to cache (holds no secret)."""

    key_id: str
    tenant_id: str
    secret_hash: str
    expires_at: datetime | None
    revoked_at: datetime | None
    tenant_disabled: bool

    def usable_at(self, now: datetime) -> bool:
        if self.revoked_at is not None or self.tenant_disabled:
            return False
        return self.expires_at is None or as_utc(self.expires_at) > now


def issue_key(tenant: Tenant, *, pepper: bytes, session: Session, label: str | None = None,
              expires_at: datetime | None = None) -> IssuedKey:
    key_id, secret = new_key_id(), new_secret()
    session.add(ApiKey(id=key_id, tenant_id=tenant.id, secret_hash=hash_secret(pepper, key_id, secret),
                       label=label, expires_at=expires_at))
    session.flush()
    return IssuedKey(key_id=key_id, tenant_id=tenant.id, api_key=format_key(key_id, secret))


def revoke_key(key_id: str, *, session: Session) -> bool:
    """True if the key existed and was not already revoked."""
    # An UPDATE answers with a cursor result: its rowcount says whether a live key was there.
    result = cast("CursorResult[Any]", session.execute(
        update(ApiKey).where(ApiKey.id == key_id, ApiKey.revoked_at.is_(None)).values(revoked_at=utcnow())
    ))
    return bool(result.rowcount)


def load_key_record(key_id: str, *, session: Session) -> KeyRecord | None:
    row = session.execute(
        select(ApiKey, Tenant.disabled_at).join(Tenant, Tenant.id == ApiKey.tenant_id).where(ApiKey.id == key_id)
    ).first()
    if row is None:
        return None
    key, tenant_disabled_at = row
    return KeyRecord(key_id=key.id, tenant_id=key.tenant_id, secret_hash=key.secret_hash,
                     expires_at=key.expires_at, revoked_at=key.revoked_at,
                     tenant_disabled=tenant_disabled_at is not None)


def touch_last_used(key_id: str, when: datetime, *, session: Session) -> None:
    session.execute(update(ApiKey).where(ApiKey.id == key_id).values(last_used_at=when))
