"""`python -m services.projector`: follow the log into the projections until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from services.platform.probes import ProbeSettings, Readiness, pool_answers, probes_served
from services.platform.runtime import ServersNotFound
from services.platform.telemetry import setup_telemetry
from services.projector.bootstrap import load_settings, opened_store
from services.projector.runner import Projector


async def main() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with opened_store(load_settings()) as store:
        # Ready while Postgres answers: the projector holds no NATS connection (it follows the log).
        async with probes_served(
            ProbeSettings(), Readiness({"postgres": pool_answers(store.pool)}, waiting=None)
        ):
            await Projector(store).run(stop)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    setup_telemetry("projector")
    try:
        asyncio.run(main())
    except ServersNotFound as missing:
        sys.exit(str(missing))
