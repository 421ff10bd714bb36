"""The gateway the integration tests talk to: a real uvicorn with the real projector beside it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from psycopg_pool import AsyncConnectionPool

from services.platform.eventstore import EventStore
from tests.integration.gateway_helpers import Gateway, projecting, serving
from tests.servers import ServerUrls


@pytest.fixture
async def gateway(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> AsyncIterator[Gateway]:
    async with projecting(store), serving(pool, server_urls.nats_url) as running:
        yield running
