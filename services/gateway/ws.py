"""The WebSocket `/ws/{session_id}?token=...[&after_position=N]`: frames in, the follower's messages out.

Three tasks per socket, and the socket ends when the first of them does: the reader (frames, in order,
one at a time), the writer (drains the socket's Outbox), and the overflow watch (a client too slow for
its messages is closed with 1013 and reconnects with `after_position`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import psycopg
from fastapi import WebSocket, WebSocketDisconnect, status

from services.gateway import messages
from services.gateway.limits import limits_of, retry_after
from services.gateway.outbox import Outbox
from services.gateway.ports import Ports
from services.gateway.protocol import (
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
)

TRY_AGAIN_LATER = 1013


async def serve_socket(
    websocket: WebSocket, ports: Ports, session_id: str, token: str | None, after_position: int | None
) -> None:
    await websocket.accept()
    if await ports.sessions.holder_of(token) != session_id:
        await websocket.close(code=status.WS_1008_POLICY_VIOLATION, reason="invalid session token")
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


class _Socket:
    def __init__(self, websocket: WebSocket, outbox: Outbox, ports: Ports) -> None:
        self.websocket, self.outbox, self.ports = websocket, outbox, ports
        self.session_id = outbox.session_id

    async def read(self, after_position: int | None) -> None:
        await self.ports.follower.start(self.outbox, after_position)
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
                await self.websocket.send_text(json.dumps(message, ensure_ascii=False))
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
        except psycopg.OperationalError:
            self.outbox.reply(
                messages.error("unavailable", "the event store is unreachable; try again", run_id)
            )

    async def dispatch(self, frame: ClientFrame) -> None:
        requests = self.ports.requests
        match frame:
            case QueryFrame():
                self.ration_questions()
                await requests.ask(self.session_id, frame)  # planning_start follows, from the log
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

    def ration_questions(self) -> None:
        limits = limits_of(self.websocket.app.state, self.ports.settings)
        wait_s = limits.queries.take(self.session_id)
        if wait_s:
            raise FrameError(
                "rate_limited",
                f"too many questions in this session; ask again in {retry_after(wait_s)} s",
            )

    async def resume(self, after_position: int) -> None:
        head = await self.ports.follower.reads.head()
        if after_position > head:
            raise FrameError("invalid_position", f"after_position {after_position} is past the head ({head})")
        if after_position < self.outbox.sent_up_to:
            self.outbox.reply(
                messages.error(
                    "resume_overlap",
                    f"this socket already sent up to position {self.outbox.sent_up_to}; resuming after it. "
                    "Reconnect with ?after_position= to replay from earlier.",
                )
            )
        await self.ports.follower.resume(self.outbox, after_position)
