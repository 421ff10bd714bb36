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

import psycopg
import uvicorn
from fastapi import FastAPI, WebSocket
from psycopg_pool import AsyncConnectionPool
from starlette.middleware.gzip import GZipMiddleware

from services.gateway.feed.follower import Follower
from services.gateway.feed.reads import Reads
from services.gateway.handlers import RunRequests
from services.gateway.health import router as health_router
from services.gateway.held_bus import HeldBus
from services.gateway.operator.routes import OperatorConfig, mount_operator
from services.gateway.people import People
from services.gateway.ports import Ports
from services.gateway.sessions import Sessions
from services.gateway.settings import GatewaySettings
from services.gateway.socket.endpoint import serve_socket
from services.gateway.web.bodies import BoundedBodies
from services.gateway.web.documents import router as documents_router
from services.gateway.web.maps.routes import router as map_router
from services.gateway.web.maps.snapshot import SEED_DIR, MapSnapshot
from services.gateway.web.page import mount_page
from services.gateway.web.people import router as people_router
from services.gateway.web.rest import router, store_unreachable
from services.platform.db import open_pool
from services.platform.settings import stream_name_for

log = logging.getLogger(__name__)


def create_app(
    settings: GatewaySettings,
    *,
    database_url: str,
    nats_url: str,
    pool: AsyncConnectionPool | None = None,
    on_follower_failure: Callable[[], None] | None = None,
    namespace: str | None = None,
) -> FastAPI:
    """The gateway app. `on_follower_failure` is called if the log follower stops on an error: the
    process's owner ends the process then, so its supervisor (make run, compose) starts a fresh one
    rather than keep a gateway whose sockets would never hear of a run again. `namespace` names the
    events stream: the gateway publishes what it appends to it, and the operator's page shows its
    consumers (without it, the relay alone publishes and the page shows none)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with _opened(pool, database_url) as ready_pool:
            reads = Reads(ready_pool, settings.store_timeout_s)
            follower = Follower(
                reads,
                database_url,  # the pool's own (a handed-in pool is opened from it too)
                batch_size=settings.follower_batch_size,
                poll_interval_s=settings.poll_interval_s,
            )
            stop = asyncio.Event()
            task = asyncio.create_task(follower.run(stop), name="gateway-follower")
            task.add_done_callback(partial(_report_follower_end, on_follower_failure))
            bus = HeldBus(namespace)
            holding = asyncio.create_task(bus.hold(nats_url), name="gateway-nats")
            sessions = Sessions(ready_pool, settings.store_timeout_s)
            announce = bus.announce if namespace is not None else None
            app.state.ports = Ports(
                settings=settings,
                bus=bus,
                sessions=sessions,
                people=People(reads, announce),
                reads=reads,
                requests=RunRequests(reads, announce, person_of=sessions.person_of),
                follower=follower,
                follower_task=task,
            )
            try:
                yield
            finally:
                stop.set()
                holding.cancel()
                _, stuck = await asyncio.wait([task, holding], timeout=10)
                for late in stuck:
                    late.cancel()

    app = FastAPI(title="Jipsa gateway", lifespan=lifespan)
    app.add_middleware(BoundedBodies, max_bytes=settings.max_body_bytes, timeout_s=settings.body_timeout_s)
    # A district's map data is some 400 kB of JSON and GeoJSON, a fifth of it compressed; small replies
    # and the socket are left as they are.
    app.add_middleware(GZipMiddleware, minimum_size=4096)
    app.add_exception_handler(psycopg.OperationalError, store_unreachable)
    app.include_router(router)
    app.include_router(documents_router)
    app.include_router(people_router)
    app.include_router(health_router)
    app.include_router(map_router)
    app.state.map_snapshot = MapSnapshot.load(SEED_DIR)
    mount_page(app)
    stream_name = stream_name_for(namespace) if namespace is not None else None
    mount_operator(app, OperatorConfig.of(settings, nats_url, stream_name))

    @app.websocket("/ws/{session_id}")
    async def session_socket(websocket: WebSocket, session_id: str) -> None:
        # The query is read by serve_socket, not declared here: FastAPI refuses a bad parameter before
        # the handshake, with a bare 403 the client cannot read a reason from.
        await serve_socket(websocket, websocket.app.state.ports, session_id)

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
    """The follower ends only at shutdown; any other end is a bug, which /readyz reports too."""
    if not task.cancelled() and task.exception() is not None:
        log.error("the gateway's follower stopped", exc_info=task.exception())
        if on_failure is not None:
            on_failure()
