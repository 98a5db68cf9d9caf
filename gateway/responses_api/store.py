"""Stored responses, per tenant: every read and delete is keyed by (tenant, id), so another tenant's id is simply
not found (a 404, never a 403 that would confirm it exists)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from gateway.core.db import Database
from gateway.core.errors import APIError, StoreUnavailable
from gateway.core.store_health import is_store_unavailable
from gateway.responses_api.models import StoredResponse

T = TypeVar("T")


def not_found(response_id: str) -> APIError:
    return APIError(404, f"No response with id '{response_id[:128]}' found.", type="invalid_request_error",
                    param="response_id", code="response_not_found")


class ResponseStore:
    def __init__(self, db: Database, *, retry_after_s: int) -> None:
        self.db = db
        self.retry_after_s = retry_after_s

    async def _run(self, work: Callable[[], T]) -> T:
        try:
            return await run_in_threadpool(work)
        except SQLAlchemyError as exc:
            if is_store_unavailable(exc):
                raise StoreUnavailable(self.retry_after_s, stage="responses_store") from None
            raise

    async def save(self, row: StoredResponse) -> None:
        def work() -> None:
            with self.db.transaction() as session:
                session.add(row)
        await self._run(work)

    async def load(self, tenant_id: str, response_id: str) -> dict[str, Any] | None:
        """The stored response's fields, or None when this tenant has none by that id."""
        def work() -> dict[str, Any] | None:
            with self.db.session() as session:
                row = session.scalars(select(StoredResponse).where(StoredResponse.tenant_id == tenant_id,
                                                                   StoredResponse.id == response_id)).first()
                if row is None:
                    return None
                return {"id": row.id, "body": row.body, "conversation": row.conversation,
                        "content_mode": row.content_mode, "created_at": row.created_at}
        return await self._run(work)

    async def delete(self, tenant_id: str, response_id: str) -> bool:
        def work() -> bool:
            with self.db.transaction() as session:
                result = session.execute(delete(StoredResponse).where(StoredResponse.tenant_id == tenant_id,
                                                                      StoredResponse.id == response_id))
                return bool(result.rowcount)  # type: ignore[attr-defined]
        return await self._run(work)


def purge_before(session: Any, tenant_id: str, cutoff: datetime) -> int:
    """Delete a tenant's stored responses created before ``cutoff`` (retention); how many went."""
    result = session.execute(delete(StoredResponse).where(StoredResponse.tenant_id == tenant_id,
                                                          StoredResponse.created_at < cutoff))
    return int(result.rowcount or 0)
