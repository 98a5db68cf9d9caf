"""Every table the gateway owns, imported in one place so Alembic and tests see the whole schema."""

from gateway.audit.models import AuditChainAnchor, AuditChainHead, AuditRecord
from gateway.export.models import AuditCheckpoint, AuditExport
from gateway.keys.models import ApiKey
from gateway.mcp.models import McpServer
from gateway.policystore.models import TenantPolicy
from gateway.responses_api.models import StoredResponse
from gateway.tenants.models import Tenant

__all__ = ["ApiKey", "AuditChainAnchor", "AuditChainHead", "AuditCheckpoint", "AuditExport", "AuditRecord", "McpServer",
           "StoredResponse", "Tenant", "TenantPolicy"]
