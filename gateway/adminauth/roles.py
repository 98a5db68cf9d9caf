"""Admin roles and the authenticated admin principal."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    PLATFORM_ADMIN = "platform-admin"  # everything
    AUDITOR = "auditor"  # read-only audit and export, every tenant
    TENANT_ADMIN = "tenant-admin"  # its own tenant's keys, policies, usage and audit


@dataclass(frozen=True, slots=True)
class AdminPrincipal:
    subject: str
    issuer: str
    roles: frozenset[Role]
    tenant_id: str | None = None  # set (and required) for tenant-admin

    def has(self, role: Role) -> bool:
        return role in self.roles

    def describe(self) -> dict[str, object]:
        """Who acted, as it goes into the audit record."""
        return {"subject": self.subject, "issuer": self.issuer, "roles": sorted(self.roles),
                "tenant": self.tenant_id}
