"""`python -m services.gateway`: serve the gateway on 127.0.0.1:$JIPSA_PORT (default 8000) until Ctrl-C."""

from __future__ import annotations

import asyncio
import logging
import sys

import uvicorn

from services.gateway.app import create_app, server_config
from services.gateway.settings import GatewaySettings
from services.platform.runtime import ServersNotFound, load_infra_settings
from services.platform.telemetry import setup_telemetry


async def main() -> None:
    infra = load_infra_settings()  # DATABASE_URL and NATS_URL, else those of the `make run` that is up
    settings = GatewaySettings()
    app = create_app(settings, database_url=infra.database_url, nats_url=infra.nats_url)
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    # The line a person looks for in `make run`'s output (uvicorn confirms the bind right after).
    print(f"\n  집사 Jipsa: open http://{shown_host}:{settings.port}/\n", flush=True)
    await uvicorn.Server(server_config(app, settings)).serve()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    setup_telemetry("gateway")
    try:
        asyncio.run(main())
    except ServersNotFound as missing:
        sys.exit(str(missing))
