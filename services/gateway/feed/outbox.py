"""One socket's outgoing messages, in order: a message reflecting an event goes out only if its position
is above every position this socket has sent, so no position is sent twice or out of order.

The follower offers live messages without awaiting (its fan-out to every socket is one step of the event
loop); a writer task drains the queue to the socket. While the socket is `held` (just connected, or
replaying), live messages are kept aside and pass the same position check when it is released.
"""

from __future__ import annotations

import asyncio
from typing import Any

Message = dict[str, Any]


class Outbox:
    def __init__(self, session_id: str, max_pending: int) -> None:
        self.session_id = session_id
        self.max_pending = max_pending
        self.sent_up_to = 0  # the highest event position queued for this socket
        self._floor = 0  # nothing at or below this position is sent
        self._holding = True  # a new socket waits until its starting point is known
        self._held: list[Message] = []
        self._queue: asyncio.Queue[Message] = asyncio.Queue()
        # The runs this socket asked or was told of and has not seen end: told when the store is lost.
        self.runs_in_flight: set[str] = set()
        # Set when the client reads slower than its messages arrive: the socket is closed, and the
        # client reconnects and resumes, instead of this socket holding ever more memory.
        self.overflowed = asyncio.Event()

    def offer(self, message: Message) -> None:
        """A live message from the follower."""
        if self._holding:
            self._held.append(message)
            self._check_size(len(self._held))
        else:
            self.send_event(message)

    def send_event(self, message: Message) -> None:
        position = message["position"]
        if position <= self._floor:
            return
        self._floor = self.sent_up_to = position
        self._put(message)

    def reply(self, message: Message) -> None:
        """A message that reflects no new event (connected, pong, error): it is not position-checked."""
        self._put(message)

    def expect_run(self, run_id: str) -> None:
        """A run this socket asked for: in flight from now, before any of its messages arrives."""
        self.runs_in_flight.add(run_id)

    def hold(self) -> None:
        self._holding = True

    def release(self, after_position: int) -> None:
        """Send what follows `after_position` (never below what was sent), held messages first."""
        self._floor = max(after_position, self.sent_up_to)
        held, self._held, self._holding = self._held, [], False
        for message in held:
            self.send_event(message)

    def restart_after(self, position: int) -> None:
        """Set the floor for a replay (held): the replay's messages pass the position check from here."""
        self._floor = max(position, self.sent_up_to)

    async def next(self) -> Message:
        return await self._queue.get()

    def _put(self, message: Message) -> None:
        run_id, kind = message.get("run_id"), message["type"]
        if run_id is not None and kind == "final_response":
            self.runs_in_flight.discard(run_id)
        elif run_id is not None and kind != "error":
            self.runs_in_flight.add(run_id)
        self._queue.put_nowait(message)
        self._check_size(self._queue.qsize())

    def _check_size(self, pending: int) -> None:
        if pending > self.max_pending:
            self.overflowed.set()
