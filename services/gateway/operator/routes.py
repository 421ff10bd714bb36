"""The operator's page (`/operator`) and its API (`/api/operator/...`): runs per minute and by outcome,
step latency by team, LLM calls by call point, dead letters with a re-drive, projection and consumer
lag, and the slowest recent runs with their audit timeline (what `jipsa audit` prints).

Behind one token from the environment (`JIPSA_OPERATOR_TOKEN`): with none configured the page
and its API do not exist (404, so a deployment without an operator shows nothing of them); a missing or
wrong bearer is 401 (the `operator` scheme in /openapi.json). The token is compared in constant time.
The page itself holds nothing secret; it asks for the token once and sends it with every call.
"""

from __future__ import annotations

import pathlib
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request, status
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from nats.errors import Error as NatsError

from contracts.api import OperatorOverview, Redriven, RunTimeline
from services.gateway.operator.figures import (
    llm_by_call_point,
    outcome_counts,
    outcomes_of,
    runs_per_minute,
    slowest_runs,
    step_latency,
)
from services.gateway.operator.reads import (
    MAX_RUNS,
    briefly_connected,
    checkpoints,
    consumers_of,
    counted_events,
    recent_runs,
)
from services.gateway.ports import Ports
from services.gateway.settings import GatewaySettings
from services.platform.audit import TimelineRow, timeline
from services.platform.deadletters import describe, list_dead_letters
from services.platform.deadletters import replay as redrive
from services.platform.eventstore import EventStore
from services.platform.storable import is_storable

SLOWEST = 10
# Letters already re-driven stay listed (marked) for a while, so the operator sees what was done.
REDRIVEN_SHOWN = 20


@dataclass(frozen=True)
class OperatorConfig:
    token: str | None
    nats_url: str
    stream_name: str | None  # the stream whose consumers' lag is shown
    timeout_s: float  # how long a NATS request of the page waits

    @classmethod
    def of(cls, settings: GatewaySettings, nats_url: str, stream_name: str | None) -> OperatorConfig:
        token = settings.operator_token.get_secret_value() if settings.operator_token else None
        return cls(token or None, nats_url, stream_name, settings.health_timeout_s)


def configured(request: Request) -> OperatorConfig:
    """The operator's settings; with no token configured the page and its API do not exist."""
    config: OperatorConfig = request.app.state.operator
    if not config.token:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
    return config


# Declares the scheme in /openapi.json; the refusal is authorised's own (404 before 401, its own body).
OPERATOR_BEARER = HTTPBearer(
    scheme_name="operator", description="the token set in JIPSA_OPERATOR_TOKEN", auto_error=False
)


def authorised(
    config: Annotated[OperatorConfig, Depends(configured)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(OPERATOR_BEARER)],
) -> OperatorConfig:
    presented = bearer.credentials if bearer else ""
    # Bytes: compare_digest refuses str with non-ASCII characters, which a header may carry.
    matches = secrets.compare_digest(presented.encode(), (config.token or "").encode())
    if bearer is None or not matches:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "a valid operator token is required", {"WWW-Authenticate": "Bearer"}
        )
    return config


Operator = Annotated[OperatorConfig, Depends(authorised)]
page = APIRouter(dependencies=[Depends(configured)], include_in_schema=False)
api = APIRouter(prefix="/api/operator")


def mount_operator(app: FastAPI, config: OperatorConfig) -> None:
    app.state.operator = config
    app.include_router(page)
    app.include_router(api)


# The page's own files are served here, behind the same switch as the page (no operator token configured:
# 404), not from the person's page's /static; the shared modules it imports (/static/js) are public.
ASSETS = pathlib.Path(__file__).parent / "static"
_MEDIA = {"operator.css": "text/css", "operator.js": "text/javascript"}


@page.get("/operator")
async def operator_page() -> FileResponse:
    return FileResponse(ASSETS / "operator.html", headers={"Cache-Control": "no-cache"})


@page.get("/operator/static/{name}")
async def operator_asset(name: str) -> FileResponse:
    if name not in _MEDIA:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such file")
    return FileResponse(ASSETS / name, media_type=_MEDIA[name], headers={"Cache-Control": "no-cache"})


@api.get("/overview", response_model=OperatorOverview)
async def overview(
    request: Request, config: Operator, minutes: Annotated[int, Query(ge=5, le=180)] = 60
) -> dict[str, Any]:
    return await _overview(_ports(request), config, minutes)


@api.get("/runs/{run_id}/timeline", response_model=RunTimeline)
async def run_timeline(
    request: Request, config: Operator, run_id: Annotated[str, Path(max_length=200)]
) -> dict[str, Any]:
    """What `jipsa audit RUN_ID` prints, row for row."""
    # Postgres cannot even be asked about U+0000: such an id names no run.
    records = (
        await EventStore(_ports(request).reads.pool).read_correlation(run_id) if is_storable(run_id) else []
    )
    if not records:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no events for this run")
    return {"run_id": run_id, "events": [_timeline_row(row) for row in timeline(records)]}


@api.post("/dead-letters/{letter_id}/redrive", response_model=Redriven)
async def redrive_letter(request: Request, config: Operator, letter_id: int) -> dict[str, Any]:
    """The re-drive `jipsa dlq replay` does: the message back on its subject, the letter marked."""
    try:
        async with briefly_connected(config.nats_url, config.timeout_s) as nc:
            letter = await redrive(
                _ports(request).reads.pool, nc.jetstream(timeout=config.timeout_s), letter_id
            )
    except LookupError:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no dead letter {letter_id}") from None
    except (NatsError, OSError):  # refused or timed out: the letter stays open (replay's transaction)
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, "the message bus (NATS) is unreachable"
        ) from None
    return {"id": letter.id, "subject": letter.subject}


def _ports(request: Request) -> Ports:
    return request.app.state.ports


async def _overview(ports: Ports, config: OperatorConfig, minutes: int) -> dict[str, Any]:
    async with ports.reads.connection() as conn:
        recent = await recent_runs(conn, minutes)
        counted = await counted_events(conn, [r["run_id"] for r in recent.runs])
        lag = await checkpoints(conn)
    outcomes = outcomes_of(counted.by_run)
    consumers = await consumers_of(config.nats_url, config.stream_name, config.timeout_s)
    return {
        "now": recent.now.isoformat(),
        "minutes": minutes,
        "runs": {
            "counted": len(recent.runs),
            "capped": len(recent.runs) == MAX_RUNS,  # the window held more; the newest were counted
            "per_minute": runs_per_minute((r["created_at"] for r in recent.runs), recent.now, minutes),
            "by_outcome": outcome_counts(outcomes),
        },
        "steps": step_latency(counted.by_run),
        "llm": llm_by_call_point(counted.llm_calls),
        "dead_letters": await _dead_letters(ports),
        "checkpoints": [{**row, "updated_at": _iso(row["updated_at"])} for row in lag],
        "consumers": {
            "stream": config.stream_name,
            "list": consumers.consumers,
            "problem": consumers.problem,
        },
        "slowest": slowest_runs(recent.runs, outcomes, SLOWEST),
    }


async def _dead_letters(ports: Ports) -> list[dict[str, Any]]:
    letters = await list_dead_letters(ports.reads.pool, include_replayed=True)
    open_ones = [describe(d) for d in letters if d.replayed_at is None]
    redriven = sorted(
        (d for d in letters if d.replayed_at is not None), key=lambda d: d.replayed_at or d.parked_at
    )
    return open_ones[::-1] + [describe(d) for d in redriven[::-1][:REDRIVEN_SHOWN]]


def _timeline_row(row: TimelineRow) -> dict[str, Any]:
    return {**asdict(row), "occurred_at": row.occurred_at.isoformat()}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
