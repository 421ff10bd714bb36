"""The gateway's probes, as an orchestrator asks them.

`/livez`: the process answers (no I/O, so an outage of a server never gets a live gateway restarted).
`/readyz`: ready for traffic: Postgres answers through the app's pool, NATS through the one connection
the gateway holds, and the log follower runs; 503 with each answer otherwise. `/healthz` is readyz
under the name existing users probe.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status
from fastapi.responses import JSONResponse

from contracts.api import GatewayReadiness, Liveness
from services.gateway.ports import Ports
from services.platform.probes import (
    LIVENESS_PATH,
    OK,
    READINESS_PATH,
    NotReady,
    Readiness,
    is_ready,
    pool_answers,
)

router = APIRouter()


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
