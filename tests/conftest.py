"""Fixtures shared by every tier. Integration tests get a database of their own and a NATS
namespace of their own on real servers, so they never see each other's events."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import nats
import psycopg
import pytest
from nats.aio.client import Client as NATS
from psycopg_pool import AsyncConnectionPool

from services.platform.db import migrate, open_pool
from services.platform.eventstore import EventStore
from services.platform.settings import InfraSettings
from tests.servers import ServerUrls, real_servers


@pytest.fixture(scope="session", autouse=True)
def jipsa_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`jipsa ask` keeps the person it asks as in $JIPSA_HOME (services/ask/person.py): tests that run it
    keep theirs in a folder of the test session, never in the home of whoever runs the tests."""
    home, before = tmp_path_factory.mktemp("jipsa-home"), os.environ.get("JIPSA_HOME")
    os.environ["JIPSA_HOME"] = str(home)
    yield home
    if before is None:
        os.environ.pop("JIPSA_HOME", None)
    else:
        os.environ["JIPSA_HOME"] = before


@pytest.fixture(scope="session")
def server_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerUrls]:
    with real_servers(tmp_path_factory.mktemp("servers")) as urls:
        yield urls


def database_on(server_url: str, name: str) -> str:
    base, _, _ = server_url.rpartition("/")
    return f"{base}/{name}"


@contextmanager
def fresh_database(server_url: str, prefix: str = "jipsa_test") -> Iterator[str]:
    """A new, migrated database on the server, dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = database_on(server_url, name)
    migrate(url)
    try:
        yield url
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def database_url(server_urls: ServerUrls) -> Iterator[str]:
    """A fresh, migrated database for one test."""
    with fresh_database(server_urls.database_url) as url:
        yield url


@pytest.fixture
def namespace() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def infra(database_url: str, server_urls: ServerUrls, namespace: str, tmp_path: Path) -> InfraSettings:
    return InfraSettings(
        DATABASE_URL=database_url,
        NATS_URL=server_urls.nats_url,
        JIPSA_NAMESPACE=namespace,
        JIPSA_DATA_DIR=tmp_path,
    )


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[AsyncConnectionPool]:
    p = await open_pool(database_url)
    yield p
    await p.close()


@pytest.fixture
async def store(pool: AsyncConnectionPool) -> EventStore:
    return EventStore(pool)


@pytest.fixture
async def nc(server_urls: ServerUrls) -> AsyncIterator[NATS]:
    client = await nats.connect(server_urls.nats_url)
    yield client
    await client.drain()
