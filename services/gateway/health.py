"""`/healthz`: the gateway is healthy when Postgres and NATS both answer and its follower is running."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import nats
from psycopg_pool import AsyncConnectionPool

OK = "ok"


async def postgres_answers(pool: AsyncConnectionPool, timeout: float) -> str:
    async def ping() -> None:
        async with pool.connection(timeout=timeout) as conn:
            await conn.execute("SELECT 1")

    return await _checked(ping(), timeout)


async def nats_answers(url: str, timeout: float) -> str:
    async def ping() -> None:
        async def quiet(_: Exception) -> None:
            """A refused connection is this check's answer, not something to log as an error."""

        client = await nats.connect(
            url.split(","),
            connect_timeout=timeout,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            error_cb=quiet,
        )
        try:
            await client.flush(timeout=timeout)
        finally:
            await client.close()

    return await _checked(ping(), timeout)


async def _checked(ping: Coroutine[Any, Any, None], timeout: float) -> str:
    """ "ok", or why not. Every failure is the check's answer (it goes into the 503), so none is re-raised."""
    try:
        await asyncio.wait_for(ping, timeout)
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except Exception as failed:
        return f"unreachable: {type(failed).__name__}: {failed}"
    return OK
