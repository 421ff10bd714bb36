"""The gateway's probes, as an orchestrator asks them.

`/livez`: the process answers (no I/O, so an outage of a server never gets a live gateway restarted).
`/readyz`: ready for traffic: Postgres answers through the app's pool, NATS through the one connection
the gateway holds, and the log follower runs; 503 with each answer otherwise. `/healthz` is readyz
under the name existing users probe.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request, status
from fastapi.responses import JSONResponse
from nats.aio.client import Client as NATS

from contracts.api import GatewayReadiness, Liveness
from services.gateway.ports import Ports
from services.platform.bus import connect
from services.platform.eventstore import Recorded
from services.platform.probes import (
    LIVENESS_PATH,
    OK,
    READINESS_PATH,
    NotReady,
    Readiness,
    bus_answers,
    is_ready,
    pool_answers,
)
from services.platform.publisher import Announcer
from services.platform.service import close_bus, once_reachable

router = APIRouter()


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


def readiness(ports: Ports) -> Readiness:
    async def follower_runs(timeout: float) -> None:
        if (state := ports.follower_status()) != OK:
            raise NotReady(state)

    return Readiness(
        {"postgres": pool_answers(ports.reads.pool), "nats": ports.bus.answers, "follower": follower_runs},
        waiting=None,
    )


@router.get(LIVENESS_PATH, response_model=Liveness)
async def livez() -> dict[str, str]:
    return {"process": OK}


READINESS_ANSWERS: dict[int | str, dict[str, Any]] = {
    status.HTTP_200_OK: {"model": GatewayReadiness, "description": "every dependency answers"},
    status.HTTP_503_SERVICE_UNAVAILABLE: {"model": GatewayReadiness, "description": "one does not"},
}


@router.get(READINESS_PATH, responses=READINESS_ANSWERS)
@router.get("/healthz", responses=READINESS_ANSWERS)
async def readyz(request: Request) -> JSONResponse:
    ports: Ports = request.app.state.ports
    report = await readiness(ports).report(ports.settings.health_timeout_s)
    return JSONResponse(
        report, status.HTTP_200_OK if is_ready(report) else status.HTTP_503_SERVICE_UNAVAILABLE
    )
