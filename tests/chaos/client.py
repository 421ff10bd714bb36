"""A person at the gateway's WebSocket who does not give up: one session, one question at a time, each
followed to its `final_response`, through dropped sockets (reconnecting with `after_position`, so nothing
is missed) and refused frames (sent again). Every moment that matters is timed.

The run a question began is recognised by its `planning_start` (the session sees only its own runs, and
asks one question at a time). A question whose socket dropped before its `planning_start` arrived may or
may not have been recorded; the replay after reconnecting shows it if it was, and if nothing shows within
`unseen_after_s` it is sent again. Either way the store check at the end covers every recorded run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from tests.chaos.verdict import outcome_of_frame

Message = dict[str, Any]
TODO_MESSAGES = ("execution_start", "todo_updated")


@dataclass
class RunTiming:
    """One question's life as the person saw it; times in seconds after the question was sent."""

    query: str
    run_id: str | None = None
    planning_start: float | None = None
    plan_ready: float | None = None
    first_todo: float | None = None  # execution_start or todo_updated, whichever came first
    first_todo_updated: float | None = None
    final: float | None = None
    final_type: str | None = None
    input_requested: bool = False  # the run asked the person; a script has no answers and cancels it
    final_frame: Message | None = None  # the run's `final_response`
    todo_steps: list[Message] = field(default_factory=list)  # `execution_steps` of its last todo message
    sent_at: float = 0.0  # wall clock, to compare with the store's recorded_at
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    resent: int = 0

    @property
    def outcome(self) -> str:
        """What the person got (tests/chaos/verdict.py): answer, guidance, answer with failed steps, error
        or none."""
        return outcome_of_frame(self.final_frame, self.todo_steps)

    def saw(self, message: Message, elapsed: float) -> None:
        kind = message["type"]
        if kind == "plan_ready" and self.plan_ready is None:
            self.plan_ready = elapsed
        if kind in TODO_MESSAGES and self.first_todo is None:
            self.first_todo = elapsed
        if kind == "todo_updated" and self.first_todo_updated is None:
            self.first_todo_updated = elapsed
        if kind in TODO_MESSAGES:
            self.todo_steps = list(message.get("execution_steps") or [])
        if kind == "final_response":
            self.final, self.final_type = elapsed, message["response"]["type"]
            self.final_frame = message
        if kind == "input_request":
            self.input_requested = True


class Disconnected(Exception):
    pass


class SessionClient:
    def __init__(self, http_url: str, ws_url: str, *, unseen_after_s: float = 20.0) -> None:
        self.http_url, self.ws_url, self.unseen_after_s = http_url, ws_url, unseen_after_s
        self.session_id = self.token = ""
        self.connection: websockets.ClientConnection | None = None
        self.last_position = 0
        self.claimed: set[str] = set()
        self.reconnects = 0

    async def open(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                async with httpx.AsyncClient(base_url=self.http_url, timeout=10) as http:
                    created = (await http.post("/api/sessions")).raise_for_status().json()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1)
        self.session_id, self.token = created["session_id"], created["token"]
        await self._connect(deadline, resume=False)

    async def close(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):
                await self.connection.close()

    async def _connect(self, deadline: float, *, resume: bool) -> None:
        url = f"{self.ws_url}/ws/{self.session_id}?token={self.token}"
        if resume:
            url += f"&after_position={self.last_position}"
        while True:
            try:
                self.connection = await websockets.connect(url, open_timeout=10, max_size=2**24)
                greeting = json.loads(await asyncio.wait_for(self.connection.recv(), 10))
                if greeting["type"] != "connected":
                    raise Disconnected(f"first message {greeting['type']}")
                if not resume:
                    self.last_position = greeting["head"]
                return
            except (OSError, TimeoutError, websockets.WebSocketException, Disconnected):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1)

    async def _reconnect(self, deadline: float, timing: RunTiming) -> None:
        await self.close()
        timing.reconnects += 1
        self.reconnects += 1
        await self._connect(deadline, resume=True)

    async def _next(self, timeout: float) -> Message | None:
        """The next message, None when nothing came within `timeout`; Disconnected when the socket dropped."""
        assert self.connection is not None
        try:
            message = json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
        except TimeoutError:
            return None
        except websockets.WebSocketException as e:
            raise Disconnected(str(e)) from e
        if isinstance(message.get("position"), int):
            self.last_position = max(self.last_position, message["position"])
        return message

    async def _send(self, frame: Message) -> None:
        assert self.connection is not None
        try:
            await self.connection.send(json.dumps(frame, ensure_ascii=False))
        except websockets.WebSocketException as e:
            raise Disconnected(str(e)) from e

    async def ask(self, query: str, timeout: float) -> RunTiming:
        """Send the question and follow its run to the end, or until `timeout` (then timing.final is None)."""
        timing = RunTiming(query=query, sent_at=time.time())
        began = time.monotonic()
        deadline = began + timeout
        await self._send_frame({"type": "query", "query": query}, timing, deadline)
        unseen_since = time.monotonic()
        while time.monotonic() < deadline and timing.final is None:
            try:
                message = await self._next(min(1.0, max(deadline - time.monotonic(), 0.01)))
            except Disconnected as dropped:
                timing.errors.append(f"disconnected: {dropped}")
                await self._reconnect(deadline, timing)
                unseen_since = time.monotonic()
                continue
            if message is not None:
                self._observe(message, timing, time.monotonic() - began)
            if await self._again(message, timing, unseen_since, deadline):
                unseen_since = time.monotonic()
        return timing

    async def _again(
        self, message: Message | None, timing: RunTiming, unseen_since: float, deadline: float
    ) -> bool:
        """Send what the server did not take: the question (refused, or never seen as a run) or the cancel
        of a run that asked for input (a script has no answers). True when the question was sent again."""
        refused = message is not None and message["type"] == "error" and message.get("code") == "unavailable"
        if timing.run_id is None and (refused or time.monotonic() - unseen_since > self.unseen_after_s):
            await asyncio.sleep(1 if refused else 0)
            timing.resent += 1
            await self._send_frame({"type": "query", "query": timing.query}, timing, deadline)
            return True
        asked = message is not None and message["type"] == "input_request"
        if timing.run_id is not None and timing.input_requested and (asked or refused):
            await self._send_frame(
                {"type": "cancel", "run_id": timing.run_id, "reason": "no answers"}, timing, deadline
            )
        return False

    async def _send_frame(self, frame: Message, timing: RunTiming, deadline: float) -> None:
        while True:
            try:
                await self._send(frame)
                return
            except Disconnected as dropped:
                timing.errors.append(f"disconnected: {dropped}")
                await self._reconnect(deadline, timing)

    def _observe(self, message: Message, timing: RunTiming, elapsed: float) -> None:
        kind, run_id = message["type"], message.get("run_id")
        if kind == "error":
            timing.errors.append(f"error {message.get('code')}: {message.get('message')}")
            return
        if kind == "planning_start" and timing.run_id is None and run_id not in self.claimed:
            if message.get("query") == timing.query:
                timing.run_id, timing.planning_start = run_id, elapsed
                self.claimed.add(run_id)
            return
        if run_id is not None and run_id == timing.run_id:
            timing.saw(message, elapsed)
