"""The gateway's one NATS connection: an adapter the lifespan opens and hands to the routes in `Ports`,
which the readiness probe asks and the run requests publish through."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from nats.aio.client import Client as NATS

from services.platform.bus import connect
from services.platform.eventstore import Recorded
from services.platform.probes import NotReady, bus_answers
from services.platform.publisher import Announcer
from services.platform.service import close_bus, once_reachable


class HeldBus:
    """The gateway's NATS connection, held while the app runs so that a probe asks it instead of
    opening one of its own, and what the gateway appends is published at once. It is opened in the
    background and retried while NATS is down: the gateway serves the page and records questions
    through Postgres alone, so a NATS outage at its start is something to report (not ready), not a
    reason to stay down."""

    def __init__(self, namespace: str | None = None) -> None:
        self.nc: NATS | None = None
        self.namespace = namespace
        # One JetStream context for the connection's life: each one subscribes anew for the acks of
        # its asynchronous publishes.
        self._announcer: Announcer | None = None

    async def announce(self, records: Sequence[Recorded]) -> None:
        """Publish what the gateway committed (a question, an answer, a cancel), as a consumer publishes
        what it appends: the planner hears of a question a NATS hop after its commit, not after the
        relay's next pass. While NATS is away nothing waits: the relay publishes it from the store."""
        if self._announcer is not None and self.nc is not None and self.nc.is_connected:
            await self._announcer(records)

    async def hold(self, url: str) -> None:
        """Until cancelled: the connection opened (again and again while NATS is down), then kept."""
        try:
            self.nc = await once_reachable("gateway", lambda: connect(url, "gateway"))
            if self.namespace is not None:
                self._announcer = Announcer(self.nc, self.namespace)
            await asyncio.Event().wait()
        finally:
            if self.nc is not None:
                await close_bus(self.nc)

    async def answers(self, timeout: float) -> None:
        if self.nc is None:
            raise NotReady("connecting")
        await bus_answers(self.nc)(timeout)
