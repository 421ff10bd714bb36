"""Every process's Postgres pool is sized by JIPSA_DB_POOL_MIN / JIPSA_DB_POOL_MAX (the connection budget)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from services.platform.db import open_pool
from services.platform.settings import PoolSettings

pytestmark = pytest.mark.integration


async def test_the_pool_takes_the_configured_sizes(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIPSA_DB_POOL_MIN", "2")
    monkeypatch.setenv("JIPSA_DB_POOL_MAX", "3")

    pool = await open_pool(database_url)
    try:
        assert (pool.min_size, pool.max_size) == (2, 3)
        assert pool.get_stats()["pool_size"] == 2  # the minimum is open before the pool is handed out
    finally:
        await pool.close()


async def test_a_smaller_pool_asked_for_keeps_its_minimum_within(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-shot command asks for one connection; a minimum configured for services does not widen it."""
    monkeypatch.setenv("JIPSA_DB_POOL_MIN", "4")

    pool = await open_pool(database_url, max_size=1)
    try:
        assert (pool.min_size, pool.max_size) == (1, 1)
    finally:
        await pool.close()


def test_a_minimum_above_the_maximum_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIPSA_DB_POOL_MIN", "9")
    with pytest.raises(ValidationError, match="JIPSA_DB_POOL_MIN is above JIPSA_DB_POOL_MAX"):
        PoolSettings()
