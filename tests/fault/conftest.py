"""Fault tests own their servers: they stop, kill, wipe and restart them, which no shared server allows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from services.platform.bus import connect
from services.platform.db import migrate, open_pool
from services.platform.eventstore import EventStore
from services.platform.servers import EmbeddedNats, EmbeddedPostgres
from services.platform.settings import InfraSettings


@dataclass
class OwnedServers:
    nats: EmbeddedNats
    postgres: EmbeddedPostgres
    database_url: str


@pytest.fixture
def owned(tmp_path: Path) -> Iterator[OwnedServers]:
    nats, postgres = EmbeddedNats(tmp_path / "nats"), EmbeddedPostgres(tmp_path / "postgres")
    nats.start()
    postgres.start()
    with psycopg.connect(postgres.url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE jipsa")
    url = postgres.url.rsplit("/", 1)[0] + "/jipsa"
    migrate(url)
    try:
        yield OwnedServers(nats, postgres, url)
    finally:
        nats.stop(kill=True)
        postgres.stop(kill=True)


@pytest.fixture
def owned_infra(owned: OwnedServers, tmp_path: Path) -> InfraSettings:
    return InfraSettings(
        DATABASE_URL=owned.database_url,
        NATS_URL=owned.nats.url,
        JIPSA_NAMESPACE="jipsa",
        JIPSA_DATA_DIR=tmp_path,
    )


@pytest.fixture
async def owned_store(owned: OwnedServers) -> AsyncIterator[EventStore]:
    pool: AsyncConnectionPool = await open_pool(owned.database_url)
    yield EventStore(pool)
    await pool.close()


@pytest.fixture
async def owned_nc(owned: OwnedServers):
    nc = await connect(owned.nats.url, "fault-test")
    yield nc
    await nc.close()
