"""The WebSocket `/ws/{session_id}?token=...[&after_position=N]`: frames in, the follower's messages out.

Three tasks per socket, and the socket ends when the first of them does: the reader (frames, in order,
one at a time), the writer (drains the socket's Outbox), and the overflow watch (a client too slow for
its messages is closed with 1013 and reconnects with `after_position`).

A refused handshake (a bad token or query parameter) is accepted and then closed with 1008 and the
reason, which a client can read; refused before accepting, it would be a bare HTTP 403.
"""

from __future__ import annotations

import asyncio
import contextlib
import re

import psycopg
from fastapi import WebSocket, WebSocketDisconnect, status

from services.gateway.feed import messages
from services.gateway.feed.outbox import Outbox
from services.gateway.frames.protocol import (
    CancelFrame,
    ClientFrame,
    FrameError,
    InputResponseFrame,
    InterruptResponseFrame,
    PingFrame,
    QueryFrame,
    ResumeFrame,
    TodoSkipFrame,
    parse_frame,
    quoted,
)
from services.gateway.limits import RateLimit, limits_of, retry_after
from services.gateway.ports import Ports
from services.platform.db import dump_json

TRY_AGAIN_LATER = 1013
STORE_LOST_REASON = "the event store is unreachable; reconnect shortly"
_POSITION = re.compile(r"[0-9]{1,18}")  # a bigint, written plainly


class HandshakeRefused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason  # a close reason: at most 123 bytes, so short and ASCII


async def serve_socket(websocket: WebSocket, ports: Ports, session_id: str) -> None:
    await websocket.accept()
    try:
        after_position = _after_position(websocket.query_params.get("after_position"))
        if await ports.sessions.holder_of(websocket.query_params.get("token")) != session_id:
            raise HandshakeRefused("invalid session token")
    except HandshakeRefused as refused:
        await websocket.close(code=status.WS_1008_POLICY_VIOLATION, reason=refused.reason)
        return
    except psycopg.OperationalError:
        await websocket.close(code=TRY_AGAIN_LATER, reason=STORE_LOST_REASON)
        return
    outbox = Outbox(session_id, ports.settings.max_pending_messages)
    ports.follower.register(outbox)  # before anything is read for it: see follower.py
    socket = _Socket(websocket, outbox, ports)
    tasks = [
        asyncio.create_task(socket.read(after_position)),
        asyncio.create_task(socket.write()),
        asyncio.create_task(outbox.overflowed.wait()),
    ]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        ports.follower.unregister(outbox)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task  # a failure of the reader or writer surfaces here, after the others stopped
    if outbox.overflowed.is_set():
        await websocket.close(code=TRY_AGAIN_LATER, reason="too slow: reconnect with after_position")
    elif socket.store_lost:
        await websocket.close(code=TRY_AGAIN_LATER, reason=STORE_LOST_REASON)


def _after_position(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not _POSITION.fullmatch(raw):
        raise HandshakeRefused("after_position must be a whole number >= 0")
    return int(raw)


class _Socket:
    def __init__(self, websocket: WebSocket, outbox: Outbox, ports: Ports) -> None:
        self.websocket, self.outbox, self.ports = websocket, outbox, ports
        self.session_id = outbox.session_id
        self.store_lost = False  # the socket could not even start: the client is told to reconnect

    async def read(self, after_position: int | None) -> None:
        try:
            await self.ports.follower.start(self.outbox, after_position)
        except psycopg.OperationalError:
            self.store_lost = True
            return
        while True:
            received = await self.websocket.receive()
            if received["type"] == "websocket.disconnect":
                return
            raw = received.get("text")
            await self.handle(raw if raw is not None else received.get("bytes") or b"")

    async def write(self) -> None:
        while True:
            message = await self.outbox.next()
            try:
                await self.websocket.send_text(dump_json(message).decode())
            except WebSocketDisconnect:
                return  # the reader sees the same disconnect and ends the socket

    async def handle(self, raw: str | bytes) -> None:
        run_id = None
        try:
            frame = parse_frame(raw, self.ports.settings.max_frame_bytes)
            run_id = getattr(frame, "run_id", None)
            await self.dispatch(frame)
        except FrameError as refused:
            self.outbox.reply(messages.error(refused.code, refused.message, run_id))
        except psycopg.OperationalError:  # PoolTimeout too: nothing was recorded, the client may resend
            self.outbox.reply(messages.error("unavailable", messages.STORE_REFUSED, run_id))

    async def dispatch(self, frame: ClientFrame) -> None:
        requests, limits = self.ports.requests, limits_of(self.websocket.app.state, self.ports.settings)
        if not isinstance(frame, QueryFrame | PingFrame):
            self.ration(limits.frames, "requests about runs")
        match frame:
            case QueryFrame():
                self.ration(limits.queries, "questions")
                asked = await requests.ask(self.session_id, frame)  # planning_start follows, from the log
                self.outbox.expect_run(asked.envelope.correlation_id)
            case InterruptResponseFrame():
                await requests.answer_plan(self.session_id, frame)
            case InputResponseFrame():
                await requests.answer_input(self.session_id, frame)
            case TodoSkipFrame():
                await requests.skip(self.session_id, frame)
            case CancelFrame():
                await requests.cancel(self.session_id, frame.run_id, frame.reason)
            case ResumeFrame():
                await self.resume(frame.after_position)
            case PingFrame():
                self.outbox.reply(messages.pong())

    def ration(self, limit: RateLimit, what: str) -> None:
        if wait_s := limit.take(self.session_id):
            raise FrameError(
                "rate_limited", f"too many {what} in this session; send again in {retry_after(wait_s)} s"
            )

    async def resume(self, after_position: int) -> None:
        head = await self.ports.follower.reads.head()
        if after_position > head:
            raise FrameError(
                "invalid_position", f"after_position {quoted(after_position)} is past the head ({head})"
            )
        if after_position < self.outbox.sent_up_to:
            self.outbox.reply(
                messages.error(
                    "resume_overlap",
                    f"this socket already sent up to position {self.outbox.sent_up_to}; resuming after it. "
                    "Reconnect with ?after_position= to replay from earlier.",
                )
            )
        await self.ports.follower.resume(self.outbox, after_position)
