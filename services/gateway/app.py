"""The gateway's FastAPI app, built by `create_app`; nothing connects until the app starts.

The lifespan opens the pool (unless one is handed in, as tests do), starts the follower, and puts the
`Ports` on `app.state` for the routes; on the way out it stops the follower and closes what it opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Annotated

import uvicorn
from fastapi import FastAPI, Query, WebSocket
from psycopg_pool import AsyncConnectionPool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.api import router
from services.gateway.documents import router as documents_router
from services.gateway.follower import Follower
from services.gateway.handlers import RunRequests
from services.gateway.page import mount_page
from services.gateway.ports import Ports
from services.gateway.reads import Reads
from services.gateway.sessions import Sessions
from services.gateway.settings import GatewaySettings
from services.gateway.ws import serve_socket
from services.platform.db import open_pool
from services.platform.eventstore import EventStore

log = logging.getLogger(__name__)


def create_app(
    settings: GatewaySettings,
    *,
    database_url: str,
    nats_url: str,
    pool: AsyncConnectionPool | None = None,
    on_follower_failure: Callable[[], None] | None = None,
) -> FastAPI:
    """The gateway app. `on_follower_failure` is called if the log follower stops on an error: the
    process's owner ends the process then, so its supervisor (make run, compose) starts a fresh one
    rather than keep a gateway whose sockets would never hear of a run again."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with _opened(pool, database_url) as ready_pool:
            reads = Reads(ready_pool)
            follower = Follower(
                reads,
                ready_pool.conninfo,
                batch_size=settings.follower_batch_size,
                poll_interval_s=settings.poll_interval_s,
            )
            stop = asyncio.Event()
            task = asyncio.create_task(follower.run(stop), name="gateway-follower")
            task.add_done_callback(partial(_report_follower_end, on_follower_failure))
            app.state.ports = Ports(
                settings=settings,
                nats_url=nats_url,
                sessions=Sessions(ready_pool),
                reads=reads,
                requests=RunRequests(EventStore(ready_pool), reads),
                follower=follower,
                follower_task=task,
            )
            try:
                yield
            finally:
                stop.set()
                _, stuck = await asyncio.wait([task], timeout=10)
                for late in stuck:
                    late.cancel()

    app = FastAPI(title="Jipsa gateway", lifespan=lifespan)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.include_router(router)
    app.include_router(documents_router)
    mount_page(app)

    @app.websocket("/ws/{session_id}")
    async def session_socket(
        websocket: WebSocket,
        session_id: str,
        token: str | None = None,
        after_position: Annotated[int | None, Query(ge=0)] = None,
    ) -> None:
        await serve_socket(websocket, websocket.app.state.ports, session_id, token, after_position)

    return app


def server_config(app: FastAPI, settings: GatewaySettings) -> uvicorn.Config:
    """How uvicorn serves the gateway: its address, and a hard frame cap above the polite one."""
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws_max_size=settings.ws_max_size,
        lifespan="on",
        log_level="warning",
    )


@contextlib.asynccontextmanager
async def _opened(pool: AsyncConnectionPool | None, database_url: str) -> AsyncIterator[AsyncConnectionPool]:
    if pool is not None:
        yield pool
        return
    own = await open_pool(database_url)
    try:
        yield own
    finally:
        await own.close()


def _report_follower_end(on_failure: Callable[[], None] | None, task: asyncio.Task[None]) -> None:
    """The follower ends only at shutdown; any other end is a bug, which /healthz reports too."""
    if not task.cancelled() and task.exception() is not None:
        log.error("the gateway's follower stopped", exc_info=task.exception())
        if on_failure is not None:
            on_failure()


class BodyLimit:
    """Refuse request bodies over `max_bytes` with 413: by Content-Length, or, for a body sent without
    one (chunked), by reading it whole before the app sees it (it is small by definition: a few KB)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:  # the server delivers no more than it declares
            if not declared.isdigit() or int(declared) > self.max_bytes:
                await _refuse(send, self.max_bytes)
                return
            await self.app(scope, receive, send)
            return
        body = await self._read_whole(receive)
        if body is None:
            await _refuse(send, self.max_bytes)
            return
        await self.app(scope, _replaying(body, receive), send)

    async def _read_whole(self, receive: Receive) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to serve
                return b""
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                return None
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body read already, then the connection's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _refuse(send: Send, max_bytes: int) -> None:
    body = f'{{"detail": "request body over {max_bytes} bytes"}}'.encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
