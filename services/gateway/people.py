"""People: a pseudonymous identity that owns sessions (no account, no e-mail), opened by a token that,
as a session's, is shown once and kept only as its sha256 (sessions.py says why that is enough).

What Jipsa remembers of a person is the projector's `memories` row (a fold of their events); the
person changes it by events of their own stream (contracts/people.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from uuid import uuid4

from psycopg import AsyncConnection
from psycopg.rows import dict_row, scalar_row

from contracts import Event, new_envelope
from contracts.people import MemoryItemForgotten, PersonForgotten, RememberingChanged, person_stream
from services.gateway.feed.reads import Reads
from services.gateway.sessions import token_hash
from services.housing.memory import REMEMBERED_TYPES, Memory, Said, remember
from services.platform.eventstore import Announce, Recorded, append_in
from services.platform.sealing import KEYRING
from services.platform.store_reads import person_events


class People:
    def __init__(self, reads: Reads, announce: Announce | None = None) -> None:
        self.reads, self.announce = reads, announce

    async def create(self) -> tuple[str, str]:
        """A new person: (person_id, token)."""
        person_id, token = uuid4().hex, secrets.token_urlsafe(32)
        async with self.reads.connection() as conn:
            await conn.execute(
                "INSERT INTO people (person_id, token_hash) VALUES (%s, %s)", (person_id, token_hash(token))
            )
        return person_id, token

    async def holder_of(self, token: str | None) -> str | None:
        """The person this token opens, or None for a missing or unknown token."""
        if not token or len(token) > 200:
            return None
        async with self.reads.connection() as conn:
            cur = await conn.cursor(row_factory=scalar_row).execute(
                "SELECT person_id FROM people WHERE token_hash = %s", (token_hash(token),)
            )
            return await cur.fetchone()

    async def memory(self, person_id: str) -> Memory:
        """What Jipsa remembers of the person: the projections' row, folded on with the person's events
        the projector has not reached yet (by the same fold), so a change reads back at once."""
        async with self.reads.connection() as conn:
            cur = await conn.cursor(row_factory=dict_row).execute(
                "SELECT remembering, items, forgotten_at, last_position FROM memories WHERE person_id = %s",
                (person_id,),
            )
            row = await cur.fetchone() or {"last_position": 0}
            folded_to = row.pop("last_position")
            newer = await person_events(conn, person_id, REMEMBERED_TYPES, after=folded_to)
        memory = Memory(person_id=person_id, **row)
        for record in newer:
            memory = remember(memory, Said.of(record.position, record.envelope))
        return memory

    async def forget_item(self, person_id: str, item_id: str) -> Recorded:
        return await self._record(MemoryItemForgotten(person_id=person_id, item_id=item_id))

    async def set_remembering(self, person_id: str, remembering: bool) -> Recorded:
        return await self._record(RememberingChanged(person_id=person_id, remembering=remembering))

    async def forget_all(self, person_id: str) -> Recorded:
        """모두 잊기: every item dropped from what Jipsa remembers and uses, and what the person said made
        unreadable everywhere: the keys of their runs deleted (the log keeps their events, those fields
        sealed for ever: services/platform/sealing.py) and their documents deleted, in the transaction
        that records it."""
        recorded = await self._record(PersonForgotten(person_id=person_id), then=_shred)
        KEYRING.forget_person(person_id)
        return recorded

    async def _record(self, event: Event, then: Shred | None = None) -> Recorded:
        person_id = event.person_id  # type: ignore[attr-defined]  # every person event names its person
        stream = person_stream(person_id)
        envelope = new_envelope(event, stream_id=stream, correlation_id=stream, person_id=person_id)
        async with self.reads.connection() as conn, conn.transaction():
            if then is not None:
                await then(conn, person_id)
            (recorded,) = await append_in(conn, [envelope], announced=self.announce is not None)
        if self.announce is not None:
            await self.announce([recorded])
        return recorded


Shred = Callable[[AsyncConnection[Any], str], Awaitable[None]]


async def _shred(conn: AsyncConnection[Any], person_id: str) -> None:
    """Delete the keys of the person's runs and the documents of their sessions."""
    await conn.execute("DELETE FROM person_keys WHERE person_id = %s", (person_id,))
    await conn.execute(
        "DELETE FROM documents WHERE session_id IN (SELECT session_id FROM sessions WHERE person_id = %s)",
        (person_id,),
    )
