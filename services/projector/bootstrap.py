"""The projector's composition root: settings in, a store over an open pool out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from services.platform.db import open_pool
from services.platform.eventstore import EventStore
from services.platform.runtime import load_infra_settings
from services.platform.settings import InfraSettings


def load_settings() -> InfraSettings:
    """DATABASE_URL, else the servers of the `make run` that is up (ServersNotFound if none).

    The projector needs Postgres only, so a set DATABASE_URL is enough even without NATS_URL.
    """
    settings = InfraSettings()
    return settings if settings.database_url else load_infra_settings()


@asynccontextmanager
async def opened_store(settings: InfraSettings) -> AsyncIterator[EventStore]:
    pool = await open_pool(settings.database_url)
    try:
        yield EventStore(pool)
    finally:
        await pool.close()
