"""Hostile input, property-based: nothing a client or a bus publisher sends can crash Jipsa.

Against a real uvicorn, Postgres and NATS:
- every WebSocket frame (random JSON, wrong types, huge and odd strings, deep nesting, binary) gets an
  `error` or its valid effect, the socket answers `ping` afterwards, and the gateway stays healthy;
- rapid connect/close cycles, some with bad tokens or positions, leave no socket registered;
- REST bodies, paths, tokens and query strings never get a 5xx;
- random payloads on every subject a consumer listens on are parked in `dead_letters`, and a good
  message published alongside is still handled;
- a session cannot reach another session's runs or documents;
- the size and rate limits hold.

The failing inputs that found bugs are kept as explicit `@example`s.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from nats.aio.client import Client as NATS
from psycopg_pool import AsyncConnectionPool

from contracts import REGISTRY, Envelope
from contracts.consumers import CONSUMERS
from contracts.results import Question
from contracts.supervisor import InputRequested, PlanApprovalRequested
from contracts.values import Team
from services.gateway.frames.protocol import FRAME_TYPES
from services.gateway.limits import GatewayLimits
from services.platform.bus import ConsumerPolicy
from services.platform.consumer import Consumer, HandlerContext, Subscription
from services.platform.deadletters import list_dead_letters
from services.platform.eventstore import EventStore
from services.platform.settings import InfraSettings
from tests.integration.bus_helpers import query_event, running, wait_until
from tests.integration.gateway_helpers import (
    LEGAL,
    SEARCH,
    Client,
    Gateway,
    connected,
    first_of_type,
    new_session,
    projecting,
    script_for,
    serving,
)
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration

# Each test's gateway (or consumers) lives across all of its examples: the fixtures are built once per
# test on purpose, hence the function-scoped-fixture health check is off.
PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
UNLIMITED = {"queries_per_minute": 0, "sessions_per_minute": 0}
ANSWER_TIMEOUT_S = 10.0


# --- what hostile input is made of ----------------------------------------------------------------------

EDGE_TEXT = [
    "",
    "   ",
    "\x00",
    "NUL\x00inside",
    "\ud800",  # a lone surrogate: only JSON's \\u escape can carry it
    "lone low \udfff",
    "\u202eRTL override\u202c",
    "שלום مرحبا",
    "zero\u200bwidth\u200d\ufeffjoiners",
    "😀👩‍👩‍👧‍👦🏳️‍🌈",
    "\U0010ffff\ufffe\uffff",
    "\x1b[31m\r\n\t\x7f",
    "<script>alert(1)</script>",
    "'; DROP TABLE events; --",
    "../../../etc/passwd",
    "%00%2e%2e%2f",
    "강남역 근처 30평대 아파트 매매 시세 알려줘",
    "가" * 2001,
]
FIELD_NAMES = [
    "query",
    "require_approval",
    "run_id",
    "action",
    "modified_todos",
    "reason",
    "todo_id",
    "step_id",
    "answers",
    "after_position",
]
texts = st.one_of(
    st.sampled_from(EDGE_TEXT),
    st.text(max_size=40),
    st.text(st.characters(categories=["Cs", "Cc", "Cf", "Zs", "Mn", "So", "Lo"]), max_size=20),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**40]),
    st.floats(),  # NaN and Infinity too: Python's JSON writes and reads them
    texts,
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


def encoded(value: Any, readable: bool) -> str:
    """JSON text: as UTF-8 would carry it when it can (raw RTL, emoji, Hangul), else \\u-escaped."""
    text = json.dumps(value, ensure_ascii=not readable)
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate cannot travel raw
        return json.dumps(value)
    return text


def as_frame(value: Any) -> st.SearchStrategy[str]:
    return st.booleans().map(lambda readable: encoded(value, readable))


frame_types = st.sampled_from(FRAME_TYPES)
random_objects = st.fixed_dictionaries(
    {"type": frame_types | json_values},
    optional={name: json_values for name in FIELD_NAMES} | {"extra": json_values},
)
typed_frames = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("query"), "query": texts}, optional={"require_approval": st.booleans() | scalars}
    ),
    st.fixed_dictionaries({"type": st.just("resume"), "after_position": st.integers(-5, 10**20) | scalars}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["cancel", "todo_skip"]), "run_id": texts, "todo_id": texts},
        optional={"reason": texts},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("interrupt_response"),
            "run_id": texts,
            "action": st.sampled_from(["approve", "modify", "reject"]) | texts,
        },
        optional={"modified_todos": st.lists(st.dictionaries(texts, json_values, max_size=3), max_size=3)},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("input_response"),
            "run_id": texts,
            "step_id": texts,
            "answers": st.dictionaries(texts, texts, max_size=3),
        }
    ),
)
raw_frames = st.one_of(
    st.binary(max_size=200),  # binary frames, most of them not UTF-8
    st.text(max_size=60),  # text that is not JSON
    st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(1, 3000).map(
        lambda depth: '{"type": "ping", "x": ' + '{"a": ' * depth + "0" + "}" * depth + "}"
    ),
    st.integers(4000, 6000).map(lambda digits: '{"type": "ping", "n": ' + "7" * digits + "}"),
    # Large frames up to uvicorn's hard cap (4 x the polite 64 KiB limit): the polite refusal answers.
    st.integers(1, 250_000).map(lambda size: json.dumps({"type": "query", "query": "x", "pad": "y" * size})),
    st.integers(0, 250_000).map(lambda size: b"\xff" * size),
)
frames = st.one_of(
    json_values.flatmap(as_frame),
    random_objects.flatmap(as_frame),
    typed_frames.flatmap(as_frame),
    raw_frames,
)


def bound_to_be_refused(frame: str | bytes) -> bool:
    """No frame of any type could be this: not JSON, not an object, or no known `type`."""
    try:
        document = json.loads(frame)
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, an integer over Python's digit limit
        return True
    except RecursionError:
        return True
    return not isinstance(document, dict) or document.get("type") not in FRAME_TYPES


def frame_type(frame: str | bytes) -> Any:
    try:
        document = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    return document.get("type") if isinstance(document, dict) else None


# --- fixtures -------------------------------------------------------------------------------------------


class ErrorLog(logging.Handler):
    """Errors logged while the gateway serves: an exception escaping a route lands here via uvicorn."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self) -> list[str]:
        return [f"{r.name}: {r.getMessage()}" for r in self.records]


@pytest.fixture
def error_log() -> Iterator[ErrorLog]:
    handler = ErrorLog()
    watched = [logging.getLogger(name) for name in ("uvicorn.error", "uvicorn.asgi", "services.gateway", "")]
    for logger in watched:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in watched:
            logger.removeHandler(handler)


@pytest.fixture
async def gateway(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> AsyncIterator[Gateway]:
    async with projecting(store), serving(pool, server_urls.nats_url, **UNLIMITED) as running_gateway:
        yield running_gateway


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def healthy(gateway: Gateway) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        answer = await http.get("/healthz")
    assert answer.status_code == 200, answer.text


def registered_sockets(gateway: Gateway) -> int:
    """Sockets the follower fans out to: each registers its Outbox and must unregister it when it ends."""
    return sum(len(outboxes) for outboxes in gateway.app.state.ports.follower._outboxes.values())


async def questions_recorded(pool: AsyncConnectionPool, session_id: str) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT count(*) AS n FROM events WHERE event_type = 'QueryReceived'"
            " AND metadata->>'session_id' = %s",
            (session_id,),
        )
        return (await cur.fetchone())["n"]


# --- the WebSocket protocol -----------------------------------------------------------------------------

KNOWN_CODES = {
    "frame_too_large",
    "invalid_json",
    "invalid_frame",
    "not_an_object",
    "unknown_type",
    "unknown_run",
    "invalid_position",
    "resume_overlap",
    "not_awaiting_approval",
    "not_awaiting_input",
    "invalid_plan",
    "rate_limited",
    # Requests checked against the run's stream (services/gateway/frames/run_waits.py).
    "already_answered",
    "already_cancelling",
    "already_skipping",
    "ambiguous_run",
    "no_such_run",
    "run_busy",
    "run_finished",
    "todo_finished",
    "unknown_todo",
}


async def answers_to(client: Client, frame: str | bytes) -> list[dict[str, Any]]:
    """What the gateway says to one frame: everything up to the pong of the ping sent right after it
    (frames are handled in order, so the frame's own answer comes first)."""
    await client.send(frame)
    await client.send({"type": "ping"})
    got = await client.until(lambda m: m["type"] == "pong", ANSWER_TIMEOUT_S)
    if frame_type(frame) == "ping" and not any(m["type"] == "error" for m in got):
        got += await client.until(lambda m: m["type"] == "pong", ANSWER_TIMEOUT_S)  # its own pong came first
    return got


def check_answers(frame: str | bytes, got: list[dict[str, Any]]) -> bool:
    """The answers are well formed; True when the frame was a question the gateway took."""
    assert {m["type"] for m in got} <= {"error", "pong", "planning_start"}, got
    errors = [m for m in got if m["type"] == "error"]
    assert len(errors) <= 1, errors
    for error in errors:
        assert error["code"] in KNOWN_CODES, error
        assert isinstance(error["message"], str) and 0 < len(error["message"]) < 4000, error
    if bound_to_be_refused(frame):
        assert errors, f"no error for {frame[:200]!r}"
    return frame_type(frame) == "query" and not errors


@PROPERTY
@given(sent=st.lists(frames, min_size=1, max_size=4))
@example(sent=['{"type": "ping", "n": ' + "1" * 5000 + "}"])  # bug 1: ValueError from int() ended the socket
@example(sent=[json.dumps({"type": "query", "query": "\ud800"})])  # bug 2: unstorable text ended the socket
@example(sent=[json.dumps({"type": "cancel", "run_id": "\ud800"})])  # bug 2, on a read
@example(sent=[json.dumps({"type": "todo_skip", "run_id": "r", "todo_id": "\udfff", "x": "\x00"})])
@example(sent=[b"\xff\xfe\x00", "[" * 3000 + "]" * 3000, json.dumps({"type": "ping", "x": "😀" * 20_000})])
async def test_every_frame_is_answered_and_the_socket_lives_on(
    gateway: Gateway, pool: AsyncConnectionPool, error_log: ErrorLog, sent: list[str | bytes]
) -> None:
    session_id, token = await new_session(gateway)
    taken = 0
    async with connected(gateway, session_id, token) as client:
        for frame in sent:
            taken += check_answers(frame, await answers_to(client, frame))
    assert await questions_recorded(pool, session_id) == taken  # each valid question became a run
    await healthy(gateway)
    assert error_log.messages() == []


async def test_a_question_after_hostile_frames_still_runs(gateway: Gateway, error_log: ErrorLog) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        for frame in (b"\x00\xff", "[" * 5000, '{"type": "query", "query": "\\ud800"}', "{}"):
            await client.send(frame)
            assert (await client.next())["type"] == "error"
        await client.send({"type": "query", "query": "전세금 인상기준은?"})
        started = await client.until_type("planning_start")
    assert started["query"] == "전세금 인상기준은?"
    assert error_log.messages() == []


async def test_frames_past_the_hard_cap_or_not_utf8_close_only_that_socket(
    gateway: Gateway, error_log: ErrorLog
) -> None:
    """Past uvicorn's cap (4 x the polite limit) the socket is closed with 1009, text that is not UTF-8
    with 1007: the WebSocket protocol's own answers. The gateway lives on, and nothing stays registered."""
    session_id, token = await new_session(gateway)
    too_big = json.dumps({"type": "query", "query": "x", "pad": "y" * (gateway_frame_cap(gateway) + 1)})
    for frame, text, code in ((too_big, None, 1009), (b"{\xff}", True, 1007)):
        async with connected(gateway, session_id, token) as client:
            await client.connection.send(frame, text=text)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await client.next()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == code
    async with connected(gateway, session_id, token) as client:
        await client.send({"type": "ping"})
        assert (await client.next())["type"] == "pong"
    await wait_until(lambda: _none_registered(gateway), timeout=10, what="every socket unregistered")
    await healthy(gateway)
    # uvicorn logs the client's broken UTF-8 as an error of its own, before the app sees the frame.
    assert error_log.messages() == ["uvicorn.error: Invalid UTF-8 sequence received from client."]


def gateway_frame_cap(gateway: Gateway) -> int:
    return gateway.app.state.ports.settings.ws_max_size


async def _none_registered(gateway: Gateway) -> bool:
    return registered_sockets(gateway) == 0


step_ids = st.sampled_from(["search", "legal", "lease"]) | texts
hostile_todos = st.fixed_dictionaries(
    {},
    optional={
        "step_id": step_ids | json_values,
        "team": st.sampled_from([team.value for team in Team]) | json_values,
        "task": texts | json_values,
        "depends_on": st.lists(step_ids, max_size=3) | json_values,
        "inputs": json_values,
    },
)
answers_to_a_waiting_run = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("interrupt_response"), "action": st.sampled_from(["approve", "modify", "reject"])},
        optional={"modified_todos": st.lists(hostile_todos, max_size=4) | json_values, "reason": texts},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("input_response"),
            "step_id": step_ids,
            "answers": st.dictionaries(
                st.sampled_from(["tenant_name", "deposit_won"]) | texts, texts, max_size=3
            )
            | json_values,
        }
    ),
)


@pytest.fixture
async def waiting_run(gateway: Gateway, store: EventStore) -> tuple[str, str, str]:
    """(session_id, token, run_id) of a run waiting for both a plan approval and a step's input."""
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        await client.send({"type": "query", "query": "임대차계약서 작성해줘", "require_approval": True})
        run_id = (await client.until_type("planning_start"))["run_id"]
    script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
    plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
    approval = script.add(PlanApprovalRequested(run_id=run_id, steps=[SEARCH, LEGAL]), plan)
    question = Question(field="tenant_name", label="임차인 성명")
    asked = InputRequested(run_id=run_id, step_id="lease", questions=[question], message="임차인은?")
    await store.append([plan, approval, script.add(asked, approval)])
    return session_id, token, run_id


@settings(PROPERTY, max_examples=30)
@given(answer=answers_to_a_waiting_run, readable=st.booleans())
async def test_answers_to_a_waiting_run_are_recorded_or_refused(
    gateway: Gateway, store: EventStore, waiting_run: tuple[str, str, str], answer: dict, readable: bool
) -> None:
    """Hostile plan edits and input answers on the session's own waiting run: each is refused with an
    `error`, or recorded as exactly one event, and the socket goes on."""
    session_id, token, run_id = waiting_run
    before = len(await store.read_correlation(run_id))
    async with connected(gateway, session_id, token) as client:
        got = await answers_to(client, encoded({**answer, "run_id": run_id}, readable))
    errors = [m for m in got if m["type"] == "error"]
    assert len(errors) <= 1 and all(e["code"] in KNOWN_CODES for e in errors), got
    assert len(await store.read_correlation(run_id)) == before + (0 if errors else 1)


# --- rapid reconnects -----------------------------------------------------------------------------------

CYCLES = ["plain", "with_frame", "resume", "bad_token", "no_token", "bad_position", "past_head", "abort"]


@settings(PROPERTY, max_examples=8)
@given(cycles=st.lists(st.sampled_from(CYCLES), min_size=10, max_size=30))
async def test_rapid_reconnects_leave_nothing_registered(
    gateway: Gateway, error_log: ErrorLog, cycles: list[str]
) -> None:
    session_id, token = await new_session(gateway)
    for cycle in cycles:
        await one_cycle(gateway, session_id, token, cycle)
    await wait_until(lambda: _none_registered(gateway), timeout=10, what="every socket unregistered")
    await healthy(gateway)
    assert error_log.messages() == []


async def one_cycle(gateway: Gateway, session_id: str, token: str, cycle: str) -> None:
    url = gateway.socket_url(session_id, token)
    if cycle in ("bad_token", "no_token", "bad_position"):
        url = {
            "bad_token": gateway.socket_url(session_id, "x" * 300),
            "no_token": f"{gateway.ws_url}/ws/{session_id}",
            "bad_position": f"{url}&after_position=-1",
        }[cycle]
        # A bad token is refused after the handshake (1008), a bad position by FastAPI before it (403).
        with pytest.raises((websockets.ConnectionClosed, websockets.InvalidStatus)) as refused:
            async with websockets.connect(url) as connection:
                await connection.recv()
        if isinstance(refused.value, websockets.InvalidStatus):
            assert refused.value.response.status_code == 403
        else:
            assert refused.value.rcvd is not None and refused.value.rcvd.code == 1008
        return
    if cycle == "past_head":
        url = gateway.socket_url(session_id, token, after_position=10**15)
    elif cycle == "resume":
        url = gateway.socket_url(session_id, token, after_position=0)
    connection = await websockets.connect(url)
    if cycle == "with_frame":
        await connection.send('{"type": "resume", "after_position": 0}')
    if cycle == "abort":
        connection.transport.abort()  # no closing handshake: the TCP connection just goes
        return
    await connection.close()


# --- REST -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caller:
    """Placeholders a hostile request is drawn with, filled in with this test's real sessions and run."""

    own_session: str
    other_session: str
    own_token: str
    other_token: str
    own_run: str

    def fill(self, value: str) -> str:
        return value.format(**self.__dict__) if value.startswith("{") and value.endswith("}") else value


ids = st.one_of(
    st.sampled_from(["{own_session}", "{other_session}", "{own_run}"]),
    st.sampled_from(["..", "../..", "..%2f..%2fetc%2fpasswd", "%2e%2e", "%00", "%ED%A0%80", "a" * 5000]),
    texts.map(lambda text: quote(text.encode("utf-8", "surrogatepass"), safe="")),
)
tokens = st.sampled_from(
    ["{own_token}", "{other_token}", "", "nope", "x" * 500, "two words", "Bearer {own_token}"]
)
schemes = st.sampled_from(["Bearer", "bearer", "Basic", ""])
bodies = st.one_of(
    st.none(),
    st.binary(max_size=300),
    json_values.map(json.dumps),
    st.fixed_dictionaries({}, optional={"title": json_values | texts, "reason": json_values | texts}).map(
        json.dumps
    ),
)
content_types = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", None])
positions = st.one_of(
    st.integers(-5, 10**30).map(str), texts.map(lambda t: quote(t.encode("utf-8", "surrogatepass")))
)
endpoints = st.one_of(
    st.tuples(st.just("POST"), st.just("/api/sessions")),
    st.tuples(st.just("GET"), st.builds("/api/sessions/{}/runs".format, ids)),
    st.tuples(st.just("GET"), st.builds("/api/runs/{}".format, ids)),
    st.tuples(
        st.just("GET"),
        st.builds("/api/runs/{}/events?after_position={}&limit={}".format, ids, positions, positions),
    ),
    st.tuples(st.just("POST"), st.builds("/api/sessions/{}/runs/{}/cancel".format, ids, ids)),
    st.tuples(st.just("GET"), st.builds("/api/documents/{}".format, ids)),
    st.tuples(
        st.sampled_from(["GET", "PUT", "DELETE", "PATCH"]), st.sampled_from(["/api/sessions", "/healthz"])
    ),
)
NOT_5XX = {200, 201, 202, 400, 401, 403, 404, 405, 413, 422}


@pytest.fixture
async def caller(gateway: Gateway) -> Caller:
    own_session, own_token = await new_session(gateway)
    other_session, other_token = await new_session(gateway)
    async with connected(gateway, own_session, own_token) as client:
        await client.send({"type": "query", "query": "전세금 5% 인상 가능한가요?"})
        own_run = (await client.until_type("planning_start"))["run_id"]
    return Caller(own_session, other_session, own_token, other_token, own_run)


@PROPERTY
@given(
    endpoint=endpoints,
    scheme=schemes,
    token=tokens,
    body=bodies,
    content_type=content_types,
)
@example(  # bug 3: a title Postgres cannot store was a 500
    endpoint=("POST", "/api/sessions"), scheme="", token="", body='{"title": "\\u0000"}', content_type=None
)
@example(
    endpoint=("POST", "/api/sessions"), scheme="", token="", body='{"title": "\\ud800"}', content_type=None
)
@example(  # bug 4: FastAPI's 422 echoed the input, and could not write NaN or a lone surrogate back
    endpoint=("POST", "/api/sessions"), scheme="", token="", body='{"title": NaN}', content_type=None
)
@example(endpoint=("POST", "/api/sessions"), scheme="", token="", body='{"\\udc80": 1}', content_type=None)
@example(  # bug 3: a cancel reason the store cannot hold, on the caller's own run
    endpoint=("POST", "/api/sessions/{own_session}/runs/{own_run}/cancel"),
    scheme="Bearer",
    token="{own_token}",
    body='{"reason": "\\u0000 \\ud800"}',
    content_type="application/json",
)
@example(  # bug 5: a NUL in a path id reached Postgres
    endpoint=("GET", "/api/runs/%00/events?after_position=1&limit=1"),
    scheme="Bearer",
    token="{own_token}",
    body=None,
    content_type=None,
)
async def test_rest_never_answers_5xx(
    gateway: Gateway,
    caller: Caller,
    error_log: ErrorLog,
    endpoint: tuple[str, str],
    scheme: str,
    token: str,
    body: str | bytes | None,
    content_type: str | None,
) -> None:
    method, path = endpoint
    path = "/".join(caller.fill(part) for part in path.split("/"))
    headers = {"Authorization": f"{scheme} {caller.fill(token)}".strip()} if scheme or token else {}
    if content_type:
        headers["Content-Type"] = content_type
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        answer = await http.request(method, path, content=body, headers=headers)
    assert answer.status_code in NOT_5XX, (answer.status_code, answer.text[:500])
    if answer.status_code < 300 and answer.url.path.startswith("/api/"):  # ".." may land on the page
        answer.json()
    assert error_log.messages() == []


async def test_request_bodies_over_the_limit_are_413(gateway: Gateway, caller: Caller) -> None:
    limit = gateway.app.state.ports.settings.max_body_bytes
    cancel = f"/api/sessions/{caller.own_session}/runs/{caller.own_run}/cancel"
    async with httpx.AsyncClient(base_url=gateway.http_url, headers=bearer(caller.own_token)) as http:
        for path in ("/api/sessions", cancel):
            padded = json.dumps({"reason": "r" * limit})
            assert (await http.post(path, content=padded)).status_code == 413
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:  # a session's token is no person's
        assert (await http.post("/api/sessions", json={"title": "딱 맞는 크기"})).status_code == 201
    # What httpx will not send: a declared length far past the limit (refused before any body is read),
    # and lengths that are no number at all.
    for declared, refused in (("999999999999", {413}), ("1e9", {400, 413}), ("-1", {400, 413})):
        request = f"POST /api/sessions HTTP/1.1\r\nHost: jipsa\r\nContent-Length: {declared}\r\n\r\n{{}}"
        assert await raw_status(gateway, request.encode()) in refused, declared


async def raw_status(gateway: Gateway, request: bytes) -> int:
    """The status a raw HTTP/1.1 request gets, written straight to the gateway's socket."""
    host, port = gateway.http_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), ANSWER_TIMEOUT_S)
    finally:
        writer.close()
    return int(status_line.split()[1])


async def test_a_chunked_body_over_the_limit_is_413(gateway: Gateway, caller: Caller) -> None:
    limit = gateway.app.state.ports.settings.max_body_bytes

    async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(limit // 1000 + 2):
            yield b" " * 1000

    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        assert (await http.post("/api/sessions", content=chunked())).status_code == 413


# --- isolation ------------------------------------------------------------------------------------------


async def test_a_session_cannot_reach_another_sessions_runs_or_documents(
    gateway: Gateway, caller: Caller, pool: AsyncConnectionPool
) -> None:
    artifact_id = f"doc-{uuid.uuid4().hex}"
    async with pool.connection() as conn:
        await conn.execute(
            "INSERT INTO documents (artifact_id, session_id, run_id, name, media_type, sha256, size, content)"
            " VALUES (%s, %s, %s, 'lease.md', 'text/markdown', %s, 2, %s)",
            (artifact_id, caller.own_session, caller.own_run, hashlib.sha256(b"ok").hexdigest(), b"ok"),
        )
    run, stranger = caller.own_run, bearer(caller.other_token)
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        for path in (f"/api/runs/{run}", f"/api/runs/{run}/events", f"/api/documents/{artifact_id}"):
            assert (await http.get(path, headers=stranger)).status_code == 404, path
            assert (await http.get(path, headers=bearer(caller.own_token))).status_code == 200, path
        foreign_list = await http.get(f"/api/sessions/{caller.own_session}/runs", headers=stranger)
        assert foreign_list.status_code == 403
        for cancel_path in (
            f"/api/sessions/{caller.other_session}/runs/{run}/cancel",
            f"/api/sessions/{caller.own_session}/runs/{run}/cancel",
        ):
            assert (await http.post(cancel_path, headers=stranger)).status_code in (403, 404)

    async with connected(gateway, caller.other_session, caller.other_token) as client:
        for frame in (
            {"type": "todo_skip", "run_id": run, "todo_id": "search"},
            {"type": "cancel", "run_id": run},
            {"type": "interrupt_response", "run_id": run, "action": "approve"},
            {"type": "interrupt_response", "run_id": run, "action": "reject"},
            {"type": "input_response", "run_id": run, "step_id": "lease", "answers": {"tenant_name": "김"}},
            {"type": "resume", "after_position": 0},  # replays this session's events only: none
        ):
            got = await answers_to(client, json.dumps(frame))
            errors = [m for m in got if m["type"] == "error"]
            assert [e["code"] for e in errors] == ([] if frame["type"] == "resume" else ["unknown_run"]), got
            assert not [m for m in got if m["type"] != "error" and m["run_id"] == run], got
    events = [r.envelope.event_type for r in await EventStore(pool).read_correlation(run)]
    assert events == ["QueryReceived"]  # nothing the stranger asked for was recorded


# --- the limits -----------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def limited(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> AsyncIterator[tuple[Gateway, Clock]]:
    """A gateway with small limits on a clock the test moves."""
    clock = Clock()
    async with serving(pool, server_urls.nats_url, queries_per_minute=3, sessions_per_minute=2) as gateway:
        gateway.app.state.limits = GatewayLimits.from_settings(gateway.app.state.ports.settings, clock)
        yield gateway, clock


async def test_too_many_new_sessions_from_one_address_are_429(limited: tuple[Gateway, Clock]) -> None:
    gateway, clock = limited
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        assert [(await http.post("/api/sessions")).status_code for _ in range(2)] == [201, 201]
        refused = await http.post("/api/sessions")
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "30"
        clock.now += 30
        assert (await http.post("/api/sessions")).status_code == 201
        assert (await http.post("/api/sessions")).status_code == 429


def refusals(got: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in got if m["type"] == "error"]


def question(text: str) -> str:
    return json.dumps({"type": "query", "query": text})


async def test_too_many_questions_in_a_session_are_refused_and_the_socket_stays_usable(
    limited: tuple[Gateway, Clock],
) -> None:
    gateway, clock = limited
    first, second = await new_session(gateway), await new_session(gateway)
    async with connected(gateway, *first) as client, connected(gateway, *second) as other:
        for n in range(3):
            assert refusals(await answers_to(client, question(f"질문 {n}"))) == []
        (refused,) = refusals(await answers_to(client, question("하나 더")))
        assert refused["code"] == "rate_limited" and "20 s" in refused["message"], refused
        assert refusals(await answers_to(other, question("다른 세션은 아직 괜찮다"))) == []
        clock.now += 20
        assert refusals(await answers_to(client, question("이제 다시"))) == []
        assert [m["code"] for m in refusals(await answers_to(client, question("또")))] == ["rate_limited"]


# --- the bus --------------------------------------------------------------------------------------------

FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=5)


def listened(service: str, key: str) -> tuple[str, str, str | None]:
    """(durable name, event type, routing token) of a subscription in the list of who consumes what."""
    event_type, _, routing = key.partition(".")
    return f"{service}-{event_type}-{routing}".rstrip("-"), event_type, routing or None


# Every subscription Jipsa's services make (contracts/consumers.py).
LISTENED = [listened(service, key) for key, services in CONSUMERS.items() for service in services]


@dataclass
class Bus:
    store: EventStore
    nc: NATS
    infra: InfraSettings
    handled: set[str]  # event ids a handler saw

    def subject(self, index: int, version: str) -> str:
        _, event_type, routing = LISTENED[index]
        return f"{self.infra.namespace}.{version}.{event_type}" + (f".{routing}" if routing else "")


@pytest.fixture
async def bus(store: EventStore, nc: NATS, infra: InfraSettings) -> AsyncIterator[Bus]:
    handled: set[str] = set()

    async def record(ctx: HandlerContext) -> None:
        handled.add(str(ctx.envelope.event_id))

    consumers = [
        Consumer(Subscription(name, event_type, record, routing), store.pool, nc, infra, FAST)
        for name, event_type, routing in LISTENED
    ]
    for consumer in consumers:
        await consumer.ensure()
    async with running(*consumers):
        yield Bus(store, nc, infra, handled)


def envelope_fields(event_type: str) -> st.SearchStrategy[dict[str, Any]]:
    """An envelope of random quality: each field well typed or not, the payload random."""
    good = {
        "event_id": st.uuids().map(str),
        "event_type": st.just(event_type),
        "schema_version": st.sampled_from([1, 2]),
        "stream_id": st.just("run-x"),
        "occurred_at": st.just(datetime.now(UTC).isoformat()),
        "correlation_id": st.just("x"),
        "producer": st.just("test"),
    }
    return st.fixed_dictionaries(
        {name: strategy | json_values for name, strategy in good.items()},
        optional={"data": st.dictionaries(texts, json_values, max_size=5), "session_id": texts},
    )


payloads = st.integers(0, len(LISTENED) - 1).flatmap(
    lambda index: st.tuples(
        st.just(index),
        st.sampled_from(["v1", "v2", "v0", "v99", "x"]),
        st.one_of(
            st.binary(max_size=300),
            json_values.map(lambda v: json.dumps(v).encode()),
            envelope_fields(LISTENED[index][1]).map(lambda v: json.dumps(v).encode()),
        ),
    )
)


def readable(payload: bytes) -> Envelope | None:
    """The envelope a consumer would hand its handler, or None if it must park the message."""
    try:
        envelope = Envelope.model_validate_json(payload)
        REGISTRY.parse(envelope.event_type, envelope.schema_version, envelope.data)
    except Exception:
        return None
    return envelope


@settings(PROPERTY, max_examples=25)
@given(published=st.lists(payloads, min_size=1, max_size=4))
@example(published=[(0, "v1", b'{"event_id": "\\u0000"}')])  # bug 6: a NUL in the reason: never parked
@example(published=[(1, "v1", b'{"event_id": "\\ud800"}')])
@example(  # bug 7: an upcaster's KeyError was no "unreadable" error: redelivered forever
    published=[
        (
            [e for _, e, _ in LISTENED].index("StepFailed"),
            "v1",
            json.dumps(
                {
                    "event_id": str(uuid.UUID(int=6)),
                    "event_type": "StepFailed",
                    "schema_version": 1,
                    "stream_id": "run-x",
                    "occurred_at": "2026-01-01T00:00:00+00:00",
                    "correlation_id": "x",
                    "producer": "test",
                    "data": {"run_id": "x"},
                }
            ).encode(),
        )
    ]
)
async def test_random_payloads_on_every_subject_are_parked_and_good_ones_still_handled(
    bus: Bus, published: list[tuple[int, str, bytes]]
) -> None:
    js = bus.nc.jetstream()
    parked_before = len(await list_dead_letters(bus.store.pool))
    expected_handled, expected_parked = set(), 0
    for index, version, payload in published:
        envelope = readable(payload)
        if envelope is None:
            expected_parked += 1
        else:
            expected_handled.add(str(envelope.event_id))
        await js.publish(bus.subject(index, version), payload)
    good = query_event(f"good-{uuid.uuid4().hex}")
    await js.publish(bus.subject(0, "v1"), good.model_dump_json().encode())
    expected_handled.add(str(good.event_id))

    async def settled() -> bool:
        parked = len(await list_dead_letters(bus.store.pool)) - parked_before
        assert parked <= expected_parked, "a message was parked twice, or a readable one was parked"
        return parked == expected_parked and expected_handled <= bus.handled

    await wait_until(settled, timeout=20, what=f"{expected_parked} parked and the good message handled")
