"""The follower: one per gateway process, it turns the log into messages for every open socket.

Following
---------
It reads the log in position order, each read with the projector's checkpoint of the same snapshot
(`checkpoints`, 'projections'). An event whose message shows the run's todo (messages.SHOWING_TODO) is
rendered only once the checkpoint has reached it, so the todo read from the projection reflects at least
that event: the follower stops before the first such event past the checkpoint and goes on when the
projector's commit notice (`jipsa_projections`, carrying the new checkpoint) reaches it. Every other
event (a question, a plan, an answer) is rendered as soon as its append's notice arrives, without
waiting for the projector. It polls as a safety net. Each event is rendered once (messages.py) and
offered to the sockets of the event's session; an Outbox per socket drops any position at or below the
last one it sent, so positions only go up on a socket.

So every event at or below the follower's cursor has been offered, and every todo-showing one among them
was at or below the checkpoint when it was: the checkpoint only grows, so at any later moment all of
them are at or below it.

Where a socket starts
---------------------
A socket is registered *held* before anything is read for it, then the head of the log is read: live
messages that arrive meanwhile are kept, and released above the head (a plain connection starts live from
the head). Registering first matters: had we read the head first, an event offered between that read and
the registration would be missed. The follower only renders the sessions that have a socket when it
reads a batch; a socket registered after that read is safe, because the head, read after registering, is
at or above everything the batch held.

Resume without gap or duplicate
-------------------------------
`resume {after_position: X}` on a socket:
1. hold the socket: from now on live messages are kept aside, not sent;
2. read the checkpoint C and the head H *after* holding. Every live message offered before the hold was
   of an event committed before it, so <= H;
3. replay the session's events in (X', H] (X' = max(X, the last position this socket sent: a position
   already sent is never sent again)), through the same rendering, in position order, stopping before
   the first todo-showing event past C, at T say. No event at or above T was offered before the hold:
   the follower cannot have passed T unless the checkpoint had reached it, and then C, read later, would
   have too;
4. release: the held live messages pass the same position check. Those up to the last replayed position
   were just replayed and are dropped; the rest (everything from T on, or above H) were all offered after
   the hold and arrive in order. Nothing in (X', H] before T is missing (the replay read it all) and
   nothing after it is missing (the follower reads the log without holes and each of those offers was
   held or sent after the replay).
The log itself has no late holes: the store serialises appends, so a position is visible only after
every lower one.

A resume after positions this socket has already sent live cannot go back without sending out of order;
the client is told so (`resume_overlap`). A client that reconnects avoids the question by passing
`?after_position=X` on the WebSocket URL (as SSE's Last-Event-ID): the replay then runs before the
socket's first live message, with no window at all.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import psycopg

from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from contracts.supervisor import PlanApprovalRequested
from services.gateway.feed import messages
from services.gateway.feed.messages import Message, RunFacts
from services.gateway.feed.outbox import Outbox
from services.gateway.feed.reads import Reads
from services.platform.db import run_again_on_closed
from services.platform.eventstore import Recorded
from services.platform.recent import Recent
from services.platform.wakeup import APPENDS, PROJECTIONS_CHANNEL, StoreWakeup


async def render(
    reads: Reads, records: list[Recorded], questions: Recent[str, dict[str, Any]]
) -> list[tuple[str | None, Message]]:
    """Each record's message (at most one), with the session it is for. The projection is read only for
    the runs whose events show their todo; `questions` holds what the runs' questions said, as
    `with_plan_facts` needs it."""
    showing_todo = [r for r in records if r.envelope.event_type in messages.SHOWING_TODO]
    facts = dict.fromkeys((r.envelope.correlation_id for r in records), RunFacts())
    facts = await with_plan_facts(reads, records, facts | await reads.facts(showing_todo), questions)
    return [
        (record.envelope.session_id, message)
        for record in records
        for message in messages.messages_for(record, facts[record.envelope.correlation_id])
    ]


async def with_plan_facts(
    reads: Reads, records: list[Recorded], facts: dict[str, RunFacts], questions: Recent[str, dict[str, Any]]
) -> dict[str, RunFacts]:
    """`facts` with what a plan's message needs (messages.py), read from the run's earlier events, which
    never change (so a live batch and a replay render alike): for a PlanReady, whether the run's question
    asked for approval; for a PlanApprovalRequested, the plan it asks about. A question rendered before
    is not read again: `questions` keeps what each said (a run has one, so it never goes stale)."""
    completed = dict(facts)
    for record in records:
        run_id, event_type = record.envelope.correlation_id, record.envelope.event_type
        if event_type == QueryReceived.event_type:
            questions.put(run_id, messages.plan_facts([record])[run_id])
            continue
        if event_type == PlanReady.event_type:
            if (known := questions.get(run_id)) is None:
                earlier = await reads.first_of_run(run_id)
                known = messages.plan_facts([earlier] if earlier else []).get(run_id, {})
        elif event_type == PlanApprovalRequested.event_type:
            earlier = await reads.latest_of_run(run_id, PlanReady.event_type)
            known = messages.plan_facts([earlier] if earlier else []).get(run_id, {})
        else:
            continue
        completed[run_id] = replace(completed[run_id], **known)
    return completed


class Follower:
    def __init__(
        self,
        reads: Reads,
        database_url: str,
        *,
        batch_size: int = 500,
        poll_interval_s: float = 1.0,
        max_backoff_s: float = 30.0,
    ) -> None:
        self.reads = reads
        self.database_url = database_url
        self.batch_size = batch_size
        self.poll_interval_s = poll_interval_s
        self.max_backoff_s = max_backoff_s
        self.cursor: int | None = None  # every event at or below it has been offered
        self.store_lost = False  # the last catch-up could not reach Postgres
        self._outboxes: dict[str, set[Outbox]] = defaultdict(set)
        self.waiting_at: int | None = None  # the todo-showing event it stopped before, until projected
        self._notices: StoreWakeup | None = None  # the appends' and the projector's, while `run` follows
        self._questions: Recent[str, dict[str, Any]] = Recent()  # with_plan_facts's, of runs in flight

    def register(self, outbox: Outbox) -> None:
        self._outboxes[outbox.session_id].add(outbox)

    def unregister(self, outbox: Outbox) -> None:
        listeners = self._outboxes.get(outbox.session_id)
        if listeners is not None:
            listeners.discard(outbox)
            if not listeners:
                del self._outboxes[outbox.session_id]

    async def start(self, outbox: Outbox, after_position: int | None) -> None:
        """Begin a registered (held) socket: `connected`, then live from the head or replayed from
        `after_position`. A position past the head belongs to some other log: refused, live from the head."""
        head = await self.reads.head()
        outbox.reply(messages.connected(outbox.session_id, head))
        if after_position is not None and after_position > head:
            outbox.reply(
                messages.error("invalid_position", f"after_position {after_position} is past the head")
            )
        if after_position is None or after_position > head:
            outbox.release(head)
        else:
            await self.resume(outbox, after_position)

    async def resume(self, outbox: Outbox, after_position: int) -> None:
        """Replay the session's messages after `after_position`, then go on live (see the module doc)."""
        outbox.hold()
        try:
            projected, head = await self.reads.checkpoint(), await self.reads.head()
            outbox.restart_after(after_position)
            async for message in self._replayed(
                outbox.session_id, max(after_position, outbox.sent_up_to), head, projected
            ):
                outbox.send_event(message)
        finally:
            outbox.release(after_position)

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the log and the projector's checkpoint until `stop`, through Postgres restarts."""
        async with StoreWakeup(self.database_url, (PROJECTIONS_CHANNEL, *APPENDS)) as wakeup:
            self._notices = wakeup
            await wakeup.follow(
                stop,
                self._catch_up_or_tell,
                name="gateway follower",
                poll_interval_s=self.poll_interval_s,
                max_backoff_s=self.max_backoff_s,
            )

    async def _catch_up_or_tell(self) -> None:
        """Catch up; when Postgres is lost, tell each socket once about each of its runs in flight (they
        wait: no event can be recorded), then let `follow` retry until it is back."""
        try:
            await self.catch_up()
        except psycopg.OperationalError:
            if not self.store_lost:
                self.store_lost = True
                for outbox in [o for listeners in self._outboxes.values() for o in listeners]:
                    for run_id in sorted(outbox.runs_in_flight):
                        outbox.reply(messages.store_unavailable(run_id))
            raise
        self.store_lost = False

    async def catch_up(self) -> None:
        if self._notices is not None and self.cursor is not None:
            told, appended = self._notices.take_position(), self._notices.take_appended()
            # What a notice can bring: an append, something to show unless an event waits for the
            # projector (nothing after it can pass it); the projector's, the event it waits for. A wake
            # with neither is a poll, which always reads.
            if self.waiting_at is not None:
                if (appended or told is not None) and (told is None or told < self.waiting_at):
                    return
            elif told is not None and not appended:
                return
        # On a connection taken without the checkout's check: a catch-up is safe to run again, since
        # an outbox drops a position it has sent (db.run_again_on_closed).
        await run_again_on_closed(
            self.reads.pool,
            lambda conn: self._catch_up_on(self.reads.on(conn)),
            timeout=self.reads.acquire_timeout_s,
        )

    async def _catch_up_on(self, reads: Reads) -> None:
        if self.cursor is None:
            # Nothing below the checkpoint at start can concern a socket: each starts at or above it.
            self.cursor = await reads.checkpoint()
        while True:
            records, projected = await reads.events_after(self.cursor, self.batch_size)
            shown = projected_prefix(records, projected or 0)
            listened = [r for r in shown if r.envelope.session_id in self._outboxes]
            for session_id, message in await render(reads, listened, self._questions):
                if session_id is None:  # only events of listened sessions were rendered
                    continue
                for outbox in list(self._outboxes.get(session_id, ())):
                    outbox.offer(message)
            if shown:
                self.cursor = shown[-1].position
            if len(shown) < len(records):  # the next event waits for the projector
                self.waiting_at = records[len(shown)].position
                return
            self.waiting_at = None
            if len(records) < self.batch_size:  # appends are serialised: nothing older can still appear
                return

    async def _replayed(
        self, session_id: str, after: int, head: int, projected: int
    ) -> AsyncIterator[Message]:
        while after < head:
            records = await self.reads.session_events(session_id, after, head, self.batch_size)
            shown = projected_prefix(records, projected)
            for _, message in await render(self.reads, shown, self._questions):
                yield message
            if len(shown) < len(records) or len(records) < self.batch_size:
                return
            after = records[-1].position


def projected_prefix(records: list[Recorded], projected: int) -> list[Recorded]:
    """`records` up to the first whose message shows a todo the projections do not reflect yet (past
    their checkpoint, `projected`)."""
    for i, record in enumerate(records):
        if record.position > projected and record.envelope.event_type in messages.SHOWING_TODO:
            return records[:i]
    return records
