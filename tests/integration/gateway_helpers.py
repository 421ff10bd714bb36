"""The gateway under test: a real uvicorn on a free port, the real Projector beside it, WebSocket and
REST clients, and stand-ins for the planner, supervisor and teams that append what they would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
import websockets
from fastapi import FastAPI
from psycopg_pool import AsyncConnectionPool

from contracts import Envelope
from contracts.supervisor import PlanApprovalRequested, RunFailed
from contracts.values import PlanStep, Team
from contracts.websocket import read_message
from services.gateway.app import create_app, server_config
from services.gateway.settings import GatewaySettings
from services.platform.eventstore import EventStore, Recorded
from services.platform.wakeup import StoreWakeup
from services.projector.runner import Projector
from tests.integration.bus_helpers import wait_until
from tests.integration.test_projector import Script

Message = dict[str, Any]
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 아파트 전세 시세 검색")
LEGAL = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 전세 조항 검색")
RECEIVE_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Gateway:
    http_url: str
    ws_url: str
    app: FastAPI

    def socket_url(self, session_id: str, token: str, after_position: int | None = None) -> str:
        url = f"{self.ws_url}/ws/{session_id}?token={token}"
        return url if after_position is None else f"{url}&after_position={after_position}"


@contextlib.asynccontextmanager
async def serving(
    pool: AsyncConnectionPool, nats_url: str, namespace: str | None = None, **overrides: Any
) -> AsyncIterator[Gateway]:
    """The app in a real uvicorn, on a socket bound here (no race for the port), until the block ends."""
    settings = GatewaySettings(poll_interval_s=0.2, **overrides)
    app = create_app(settings, database_url=pool.conninfo, nats_url=nats_url, pool=pool, namespace=namespace)
    server = uvicorn.Server(server_config(app, settings))
    # A TCP socket by its protocol number, as uvicorn's own bind makes it: asyncio sets TCP_NODELAY only
    # on connections accepted from such a socket. With `socket.socket()` (protocol 0), Nagle's algorithm
    # held every second message of a run until the client's delayed ACK, 30-40 ms later.
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listening.bind(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    task = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.02)
        yield Gateway(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        listening.close()


@contextlib.asynccontextmanager
async def projecting(store: EventStore) -> AsyncIterator[None]:
    stop = asyncio.Event()
    task = asyncio.create_task(Projector(store, poll_interval_s=0.2).run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def new_session(gateway: Gateway) -> tuple[str, str]:
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        created = (await http.post("/api/sessions")).raise_for_status().json()
    return created["session_id"], created["token"]


class Client:
    """A WebSocket client that keeps every message it received."""

    def __init__(self, connection: websockets.ClientConnection) -> None:
        self.connection = connection
        self.received: list[Message] = []

    async def send(self, frame: Message | str | bytes) -> None:
        await self.connection.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    async def next(self, timeout: float = RECEIVE_TIMEOUT_S) -> Message:
        """The next message, which must fit the published protocol (contracts/websocket.py) exactly."""
        raw = await asyncio.wait_for(self.connection.recv(), timeout)
        read_message(raw)  # raises, naming what differs, for a message the schema does not describe
        message = json.loads(raw)
        self.received.append(message)
        return message

    async def until(
        self, done: Callable[[Message], bool], timeout: float = RECEIVE_TIMEOUT_S
    ) -> list[Message]:
        """Messages up to and including the first for which `done` is true."""
        got = []
        async with asyncio.timeout(timeout):
            while True:
                got.append(await self.next(timeout))
                if done(got[-1]):
                    return got

    async def until_type(self, kind: str, timeout: float = RECEIVE_TIMEOUT_S) -> Message:
        return (await self.until(lambda m: m["type"] == kind, timeout))[-1]


def awaits_approval(message: Message) -> bool:
    """The plan of a run waiting for the person's answer: `plan_ready` with `requires_approval` true."""
    return message["type"] == "plan_ready" and message.get("requires_approval") is True


@contextlib.asynccontextmanager
async def connected(gateway: Gateway, session_id: str, token: str, after_position: int | None = None):
    async with websockets.connect(gateway.socket_url(session_id, token, after_position)) as connection:
        client = Client(connection)
        greeting = await client.next()
        assert greeting["type"] == "connected", greeting
        yield client


def event_positions(messages: list[Message]) -> list[int]:
    return [m["position"] for m in messages if m["type"] not in ("connected", "error", "pong")]


async def first_of_type(store: EventStore, run_id: str, event_type: str) -> Recorded:
    """The run's first event of this type, once some service (or the gateway) has appended it."""
    found: list[Recorded] = []

    async def appended() -> bool:
        found[:] = [r for r in await store.read_correlation(run_id) if r.envelope.event_type == event_type]
        return bool(found)

    await wait_until(appended, timeout=RECEIVE_TIMEOUT_S, what=f"{event_type} in run {run_id}")
    return found[0]


def script_for(query: Recorded) -> tuple[Script, Envelope]:
    """A Script continuing the run that `query` (a QueryReceived the gateway recorded) began."""
    run_id = query.envelope.correlation_id
    return Script(run_id, query.envelope.session_id), query.envelope


class SimulatedServices:
    """The planner, supervisor and teams as one stand-in: each QueryReceived gets a plan, two steps and an
    answer (after approval when asked for); a query containing FAIL_WORD ends in RunFailed instead."""

    FAIL_WORD = "실패"

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.cursor = 0
        self.waiting_for_approval: dict[str, tuple[Script, bool]] = {}

    async def run(self, stop: asyncio.Event) -> None:
        async with StoreWakeup(self.store.pool.conninfo) as wakeup:
            while not stop.is_set():
                for record in await self.store.read_all(self.cursor):
                    self.cursor = record.position
                    await self.react(record)
                await wakeup.wait(stop, 0.2)

    async def react(self, record: Recorded) -> None:
        kind, run_id, data = record.envelope.event_type, record.envelope.correlation_id, record.envelope.data
        if kind == "QueryReceived":
            script, query = script_for(record)
            failing = self.FAIL_WORD in data["query"]
            plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
            if data["options"]["require_approval"]:
                self.waiting_for_approval[run_id] = (script, failing)
                await self.store.append(
                    [plan, script.add(PlanApprovalRequested(run_id=run_id, steps=[SEARCH, LEGAL]), plan)]
                )
            else:
                await self.store.append([plan, *self.execution(script, plan, failing)])
        elif kind == "PlanApproved" and run_id in self.waiting_for_approval:
            script, failing = self.waiting_for_approval.pop(run_id)
            await self.store.append(self.execution(script, record.envelope, failing))

    def execution(self, script: Script, cause: Envelope, failing: bool) -> list[Envelope]:
        search, legal = script.started(SEARCH, cause), script.started(LEGAL, cause)
        found, cited = script.completed(SEARCH, search), script.completed(LEGAL, legal)
        if failing:
            failure = RunFailed(run_id=script.run_id, code="upstream_unavailable", reason="테스트 실패")
            return [search, legal, found, script.add(failure, cited)]
        return [search, legal, found, cited, script.answered(cited)]


@contextlib.asynccontextmanager
async def simulated_services(store: EventStore) -> AsyncIterator[None]:
    stop = asyncio.Event()
    task = asyncio.create_task(SimulatedServices(store).run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
