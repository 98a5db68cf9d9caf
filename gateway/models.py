"""Every table the gateway owns, imported in one place so Alembic and tests see the whole schema."""

from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.keys.models import ApiKey
from gateway.policystore.models import TenantPolicy
from gateway.tenants.models import Tenant

__all__ = ["ApiKey", "AuditChainHead", "AuditRecord", "Tenant", "TenantPolicy"]
