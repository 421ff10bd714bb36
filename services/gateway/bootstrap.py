"""The gateway's composition root: typed settings in (settings.py, and the servers'), the app that
app.py's `create_app` builds from them, served by uvicorn on 127.0.0.1:$JIPSA_PORT (default 8000)."""

from __future__ import annotations

import logging
import sys

import uvicorn

from services.gateway.app import create_app, server_config
from services.gateway.settings import GatewaySettings
from services.platform import heap, loop
from services.platform.runtime import ServersNotFound, load_infra_settings
from services.platform.service import server_url
from services.platform.telemetry import setup_telemetry


async def serve() -> int:
    """Serve until SIGTERM/SIGINT (exit 0), or until the log follower fails (exit 1): crash-only, so
    `make run`'s supervisor or compose starts a fresh gateway instead of keeping a deaf one."""
    infra = load_infra_settings()  # DATABASE_URL and NATS_URL, else those of the `make run` that is up
    settings = GatewaySettings()
    server: uvicorn.Server | None = None
    follower_failed = False

    def end_for_a_fresh_start() -> None:
        nonlocal follower_failed
        follower_failed = True
        if server is not None:
            server.should_exit = True

    app = create_app(
        settings,
        database_url=server_url(infra.database_url, "DATABASE_URL"),
        nats_url=server_url(infra.nats_url, "NATS_URL"),
        on_follower_failure=end_for_a_fresh_start,
        namespace=infra.namespace,
    )
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    # The line a person looks for in `make run`'s output (uvicorn confirms the bind right after).
    print(f"\n  집사 Jipsa: open http://{shown_host}:{settings.port}/\n", flush=True)
    server = uvicorn.Server(server_config(app, settings))
    heap.settle()
    await server.serve()
    return 1 if follower_failed else 0


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    setup_telemetry("gateway")
    try:
        sys.exit(loop.run(serve()))
    except ServersNotFound as missing:
        sys.exit(str(missing))
