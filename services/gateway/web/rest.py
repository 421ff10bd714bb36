"""The REST side: sessions, a session's runs, a run's state and events, cancelling (health: ../health.py;
people and their memory: people.py).

A token is presented as `Authorization: Bearer <token>` (the `session` scheme in /openapi.json, where each
route's answer is a model of contracts/api.py): missing or unknown is 401, a valid token used
on another session's path is 403, and another session's run is 404, exactly like a run that does not
exist, so a session cannot learn what others asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from contracts.api import CancelAccepted, RunEvent, RunEvents, RunState, SessionCreated, SessionRuns, Todo
from services.gateway.frames.protocol import FrameError
from services.gateway.handlers import UnknownRun
from services.gateway.limits import limits_of, retry_after
from services.gateway.ports import Ports
from services.platform.eventstore import Recorded
from services.platform.storable import is_storable, storable


class PlainRefusals(APIRoute):
    """A 422 lists what is wrong without echoing the client's input back. FastAPI's own handler echoes
    it, and an input that JSON cannot carry back (a lone surrogate, NaN) turned the refusal into a 500."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def refusing_plainly(request: Request) -> Response:
            try:
                return await handle(request)
            except RequestValidationError as invalid:
                detail = [
                    {"type": e["type"], "loc": [_bounded(part) for part in e["loc"]], "msg": e["msg"]}
                    for e in invalid.errors()
                ]
                # ASCII: a key the client sent (in `loc`) may be a lone surrogate, which UTF-8 cannot carry.
                body = json.dumps({"detail": detail}, ensure_ascii=True)
                return Response(body, status.HTTP_422_UNPROCESSABLE_CONTENT, media_type="application/json")

        return refusing_plainly


def _bounded(part: str | int) -> str | int:
    """A place in the input, named without echoing a client's key of any length (a body's own keys)."""
    return part if isinstance(part, int) or len(part) <= 64 else f"{part[:64]}…"


router = APIRouter(route_class=PlainRefusals)
# Seconds a client waits before trying again while the store is unreachable (a restart takes a few).
STORE_RETRY_AFTER_S = 5
StorableText = Annotated[str, AfterValidator(storable)]


class NewSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: StorableText | None = Field(default=None, max_length=200)


class CancelRun(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: StorableText | None = Field(default=None, max_length=500)


def ports_of(request: Request) -> Ports:
    return request.app.state.ports


PortsDep = Annotated[Ports, Depends(ports_of)]


# Declares the scheme in /openapi.json; the refusal is session_of's own (its 401 names what is missing).
SESSION_BEARER = HTTPBearer(
    scheme_name="session", description="the token `POST /api/sessions` returned", auto_error=False
)
Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(SESSION_BEARER)]


async def session_of(request: Request, ports: PortsDep, bearer: Bearer) -> str:
    """The session the bearer token opens."""
    session_id = await ports.sessions.holder_of(bearer.credentials if bearer else None)
    if session_id is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "a valid session token is required", {"WWW-Authenticate": "Bearer"}
        )
    # Every route behind a token looks its path's ids up in Postgres, which cannot even be asked about
    # U+0000: such an id names nothing, here rather than as a DataError (a 500) in each route.
    if not all(is_storable(str(value)) for value in request.path_params.values()):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such resource")
    return session_id


SessionDep = Annotated[str, Depends(session_of)]

# The person's token (web/people.py): it opens /api/people/me and makes a session theirs.
PERSON_BEARER = HTTPBearer(
    scheme_name="person", description="the token `POST /api/people` returned", auto_error=False
)
PersonBearer = Annotated[HTTPAuthorizationCredentials | None, Depends(PERSON_BEARER)]


async def person_of(ports: PortsDep, bearer: PersonBearer) -> str:
    """The person the bearer token opens."""
    person_id = await ports.people.holder_of(bearer.credentials if bearer else None)
    if person_id is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "a valid person token is required", {"WWW-Authenticate": "Bearer"}
        )
    return person_id


def own_session(path_session_id: str, session_id: str) -> None:
    if path_session_id != session_id:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this token belongs to another session")


async def own_run(ports: Ports, session_id: str, run_id: str) -> None:
    try:
        await ports.requests.first_event(session_id, run_id)
    except UnknownRun as unknown:
        raise HTTPException(status.HTTP_404_NOT_FOUND, unknown.message) from None


def refuse_if_rationed(wait_s: float, what: str) -> None:
    """A 429 saying when the next token comes, when the bucket had none (`wait_s` > 0)."""
    if wait_s:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many {what}; try again later",
            {"Retry-After": str(retry_after(wait_s))},
        )


@router.post("/api/sessions", status_code=status.HTTP_201_CREATED)
async def create_session(
    request: Request, ports: PortsDep, bearer: PersonBearer, body: NewSession | None = None
) -> SessionCreated:
    """A session; with a person's token, a session of that person (without one, a session of nobody)."""
    person_id = None if bearer is None else await person_of(ports, bearer)
    address = request.client.host if request.client else "unknown"
    refuse_if_rationed(
        limits_of(request.app.state, ports.settings).sessions.take(address), "new sessions from this address"
    )
    session_id, token = await ports.sessions.create(body.title if body else None, person_id)
    return SessionCreated(session_id=session_id, token=token)


@router.get("/api/sessions/{session_id}/runs")
async def list_runs(session_id: str, caller: SessionDep, ports: PortsDep) -> SessionRuns:
    own_session(session_id, caller)
    return SessionRuns.model_validate(
        {"session_id": session_id, "runs": await ports.reads.session_runs(session_id)}
    )


# Unset fields stay out: a run not projected yet is answered with what is known of it, nothing invented.
@router.get("/api/runs/{run_id}", response_model_exclude_unset=True)
async def get_run(run_id: str, caller: SessionDep, ports: PortsDep) -> RunState:
    """The run's final state and its todo; a run the projector has not reached yet is still planning."""
    await own_run(ports, caller, run_id)
    state = await ports.reads.final_state(run_id) or {
        "run_id": run_id,
        "session_id": caller,
        "status": "planning",
    }
    todo = await ports.reads.todo(run_id)
    found = Todo.model_validate({"progress_pct": todo.progress_pct, "steps": todo.steps}) if todo else None
    return RunState.model_validate({**state, "todo": found})


@router.get("/api/runs/{run_id}/events")
async def get_run_events(
    run_id: str,
    caller: SessionDep,
    ports: PortsDep,
    after_position: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> RunEvents:
    await own_run(ports, caller, run_id)
    records = await ports.reads.run_events(run_id, after_position, limit)
    return RunEvents(run_id=run_id, events=[_event(r) for r in records])


@router.post("/api/sessions/{session_id}/runs/{run_id}/cancel", status_code=status.HTTP_202_ACCEPTED)
async def cancel_run(
    request: Request,
    session_id: str,
    run_id: str,
    caller: SessionDep,
    ports: PortsDep,
    body: CancelRun | None = None,
) -> CancelAccepted:
    """Record the request; the supervisor ends the run (RunCancelled), which the socket then reports."""
    own_session(session_id, caller)
    refuse_if_rationed(
        limits_of(request.app.state, ports.settings).frames.take(caller),
        "requests about runs in this session",
    )
    try:
        recorded = await ports.requests.cancel(caller, run_id, body.reason if body else None)
    except UnknownRun as unknown:
        raise HTTPException(status.HTTP_404_NOT_FOUND, unknown.message) from None
    except FrameError as refused:  # ended already, or being cancelled: nothing is recorded
        raise HTTPException(status.HTTP_409_CONFLICT, refused.message) from None
    return CancelAccepted(run_id=run_id, position=recorded.position)


async def store_unreachable(request: Request, failure: Exception) -> JSONResponse:
    """Postgres down or every connection taken past the wait (OperationalError, PoolTimeout): a 503 the
    client can retry, not a 500 after the pool's half minute."""
    return JSONResponse(
        {"error": "store_unavailable", "detail": "the event store is unreachable; try again shortly"},
        status.HTTP_503_SERVICE_UNAVAILABLE,
        {"Retry-After": str(STORE_RETRY_AFTER_S)},
    )


def _event(record: Recorded) -> RunEvent:
    envelope = record.envelope
    return RunEvent(
        position=record.position,
        event_id=str(envelope.event_id),
        type=envelope.event_type,
        version=envelope.schema_version,
        occurred_at=envelope.occurred_at.isoformat(),
        causation=str(envelope.causation_id) if envelope.causation_id else None,
        data=envelope.data,
    )
