"""Liveness and readiness, the way an orchestrator probes a process: `/livez` and `/readyz` over HTTP.

`/livez` answers 200 whenever the event loop runs: it does no I/O, so a slow Postgres never gets a
live process restarted. `/readyz` answers 200 only when every check passes, and 503 with each
check's answer otherwise ("ok", or why not), so an operator reads the reason from the probe itself.
Checks use what the process already holds (its pool, its NATS connection): a probe opens nothing.

Workers serve these on `JIPSA_HEALTH_PORT` from their own event loop with asyncio's streams (a
probe is one GET; no web framework is needed for it). The gateway serves the same answers as routes
of its app (services/gateway/health.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus

from nats.aio.client import Client as NATS
from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger("jipsa.probes")
OK = "ok"
# The paths orchestrators are pointed at (docker-compose.yml, infra/helm/jipsa): the gateway's routes too.
LIVENESS_PATH, READINESS_PATH = "/livez", "/readyz"
Check = Callable[[float], Awaitable[None]]  # raises (NotReady or any error) when the thing is not ready
REQUEST_READ_S = 2.0  # a probe sends one short request line; a client that dawdles is dropped


class ProbeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JIPSA_HEALTH_", extra="ignore")

    port: int = Field(
        default=0,
        ge=0,
        le=65535,
        description="Port of a worker's /livez and /readyz (0: not served). One port per process: set "
        "it per container; under `make run` every process would want the same one.",
    )
    host: str = Field(
        default="127.0.0.1",
        description="Address the probe port binds; 0.0.0.0 where the orchestrator probes the pod's "
        "address (Kubernetes), 127.0.0.1 where the check runs inside the container (compose).",
    )
    timeout_s: float = Field(default=2.0, gt=0, description="How long /readyz waits for each check.")


class NotReady(Exception):
    """A check's answer when the thing it checks is plainly not there (no need to ask it)."""


@dataclass
class Readiness:
    """What `/readyz` reports: one check per thing the process holds, added as it comes to hold it.
    `waiting` says what start-up is still doing (None once the process works)."""

    checks: dict[str, Check] = field(default_factory=dict)
    waiting: str | None = "starting"

    async def report(self, timeout: float) -> dict[str, str]:
        names = list(self.checks)
        answers = await asyncio.gather(*(answer_of(self.checks[name], timeout) for name in names))
        report = dict(zip(names, answers, strict=True))
        if self.waiting is not None:
            report["start"] = self.waiting
        return report


def is_ready(report: dict[str, str]) -> bool:
    return all(answer == OK for answer in report.values())


async def answer_of(check: Check, timeout: float) -> str:
    """ "ok", or why not. Every failure is the probe's answer (it goes into the 503), so none is re-raised."""
    try:
        await asyncio.wait_for(check(timeout), timeout)
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except NotReady as why:
        return str(why)
    except Exception as failed:
        return f"unreachable: {type(failed).__name__}: {failed}"
    return OK


def pool_answers(pool: AsyncConnectionPool) -> Check:
    """Postgres answers a query through the pool the process works with."""

    async def check(timeout: float) -> None:
        async with pool.connection(timeout=timeout) as conn:
            await conn.execute("SELECT 1")

    return check


def bus_answers(nc: NATS) -> Check:
    """The process's own NATS connection is up and the server answers a round trip on it."""

    async def check(timeout: float) -> None:
        if not nc.is_connected:
            raise NotReady("reconnecting" if nc.is_reconnecting else "not connected")
        await nc.flush()  # bounded by the caller (answer_of)

    return check


@contextlib.asynccontextmanager
async def probes_served(settings: ProbeSettings, readiness: Readiness) -> AsyncIterator[None]:
    """`/livez` and `/readyz` on `settings.port` while the block runs; nothing when the port is 0."""
    if not settings.port:
        yield
        return

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), REQUEST_READ_S)
            status, body = await _response(request_line, readiness, settings.timeout_s)
            payload = json.dumps(body, ensure_ascii=False).encode()
            writer.write(
                f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass  # the prober gave up or went away: there is no one to answer
        finally:
            writer.close()

    server = await asyncio.start_server(answer, settings.host, settings.port)
    log.info("probes on http://%s:%d/livez and /readyz", settings.host, settings.port)
    try:
        yield
    finally:
        server.close()
        await server.wait_closed()


async def _response(
    request_line: bytes, readiness: Readiness, timeout: float
) -> tuple[HTTPStatus, dict[str, str]]:
    method, _, rest = request_line.decode("latin-1").partition(" ")
    path = rest.partition(" ")[0].partition("?")[0]
    if method != "GET":
        return HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"GET {LIVENESS_PATH} or {READINESS_PATH}"}
    if path == LIVENESS_PATH:
        return HTTPStatus.OK, {"process": OK}
    if path == READINESS_PATH:
        report = await readiness.report(timeout)
        return (HTTPStatus.OK if is_ready(report) else HTTPStatus.SERVICE_UNAVAILABLE), report
    return HTTPStatus.NOT_FOUND, {"error": f"GET {LIVENESS_PATH} or {READINESS_PATH}"}
