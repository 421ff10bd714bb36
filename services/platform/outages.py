"""Outages of the store (Postgres) or the bus (NATS), told apart from failures of the work itself.

An outage is not the fault of the message, the step or the command that met it: consumers wait it
out without spending a delivery attempt (consumer.py), services wait for the store at start-up
(service.py), and the `jipsa` CLI says so in one line instead of a traceback (cli.py). Everything
else (a bug, a refused statement, a timeout of a query) is the work's own failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit

import nats.errors
import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

PROBE_TIMEOUT_S = 3

# SQLSTATEs that mean the server, not the statement, failed: class 08 (connection exception), an
# administrator's or a crash's shutdown, a server still starting up.
_SERVER_GONE = ("08", "57P01", "57P02", "57P03")
_BUS_GONE = (
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.NoServersError,
    nats.errors.StaleConnectionError,
)


class Unreachable(ConnectionError):
    """A server Jipsa needs does not answer. The message names its URL without the password."""

    server = "서버"

    def __init__(self, url: str) -> None:
        self.url = without_password(url)
        super().__init__(f"{self.server}에 연결할 수 없습니다: {self.url}")


class StoreUnreachable(Unreachable):
    server = "저장소(Postgres)"


class BusUnreachable(Unreachable):
    server = "메시지 버스(NATS)"


def is_outage(error: BaseException) -> bool:
    """Whether `error` says a server is unreachable (rather than that the work itself failed).

    A pool that hands out no connection in time is counted as an outage too: the store is either
    down or saturated, and neither is the message's fault.
    """
    if isinstance(error, (Unreachable, PoolTimeout, *_BUS_GONE)):
        return True
    if isinstance(error, psycopg.OperationalError):
        # No SQLSTATE: the client lost or never had a connection (refused, closed by the server).
        return error.sqlstate is None or error.sqlstate.startswith(_SERVER_GONE)
    return False


def first_outage(error: BaseException) -> BaseException | None:
    """The outage behind `error`, looking through causes and exception groups (a TaskGroup's)."""
    if is_outage(error):
        return error
    if isinstance(error, BaseExceptionGroup):
        return next((o for e in error.exceptions if (o := first_outage(e))), None)
    cause = error.__cause__ or error.__context__
    return first_outage(cause) if cause is not None else None


def url_of(pool: AsyncConnectionPool) -> str:
    """The URL a pool connects to (db.open_pool gives it one), for a connection of one's own."""
    if not isinstance(pool.conninfo, str):
        raise TypeError("this pool was opened without a URL: open it with db.open_pool")
    return pool.conninfo


async def store_answers(database_url: str) -> bool:
    """One fresh connection and a `SELECT 1`, bypassing any pool (a pool may still be backing off)."""
    with contextlib.suppress(psycopg.Error, OSError, TimeoutError):
        async with asyncio.timeout(PROBE_TIMEOUT_S + 1):
            conn = await psycopg.AsyncConnection.connect(database_url, connect_timeout=PROBE_TIMEOUT_S)
            async with conn:
                await conn.execute("SELECT 1")
                return True
    return False


def without_password(url: str) -> str:
    """`url` fit to print: a password in it is dropped (every URL of a comma-separated list)."""
    return ",".join(_one_without_password(u) for u in url.split(","))


def _one_without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}@" if parts.username else ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}{host}"))


def backoff(first_s: float, max_s: float):
    """first, 2×first, 4×first, ... capped at `max_s`: the waits between two looks at a server."""
    delay = first_s
    while True:
        yield delay
        delay = min(delay * 2, max_s)
