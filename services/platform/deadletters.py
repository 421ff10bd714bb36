"""The dead-letter place: messages a consumer gave up on, kept in Postgres for an operator.

`replay` re-drives one to its original subject under a fresh `Nats-Msg-Id`
(the original id is still inside JetStream's duplicate window or already
handled elsewhere); consumers that did handle it find it in their inbox and
skip it, the one that parked it handles it now.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nats.aio.msg import Msg
from nats.js import JetStreamContext
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool


@dataclass(frozen=True)
class DeadLetter:
    id: int
    consumer: str
    subject: str
    event_id: str | None
    error: str
    deliveries: int
    parked_at: datetime
    replayed_at: datetime | None
    payload: bytes
    headers: dict[str, Any]


async def park(pool: AsyncConnectionPool, *, consumer: str, msg: Msg, error: str, deliveries: int) -> None:
    headers = dict(msg.headers or {})
    async with pool.connection() as conn:
        await conn.execute(
            """INSERT INTO dead_letters (consumer, subject, event_id, payload, headers, error, deliveries)
               VALUES (%s, %s, %s, %s, %s, %s, %s)""",
            (
                consumer,
                msg.subject,
                headers.get("Nats-Msg-Id"),
                msg.data,
                Jsonb(headers),
                error[:4000],
                deliveries,
            ),
        )


async def list_dead_letters(pool: AsyncConnectionPool, *, include_replayed: bool = False) -> list[DeadLetter]:
    where = "" if include_replayed else "WHERE replayed_at IS NULL"
    async with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        rows = await (await cur.execute(f"SELECT * FROM dead_letters {where} ORDER BY id")).fetchall()
    return [DeadLetter(**{**r, "payload": bytes(r["payload"])}) for r in rows]


async def replay(pool: AsyncConnectionPool, js: JetStreamContext, letter_id: int) -> DeadLetter:
    async with pool.connection() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        row = await (
            await cur.execute("SELECT * FROM dead_letters WHERE id = %s FOR UPDATE", (letter_id,))
        ).fetchone()
        if row is None:
            raise LookupError(f"no dead letter {letter_id}")
        headers = {k: str(v) for k, v in row["headers"].items()}
        headers["Nats-Msg-Id"] = (
            f"{headers.get('Nats-Msg-Id', 'unknown')}:redrive:{letter_id}:{datetime.now().timestamp()}"
        )
        await js.publish(row["subject"], bytes(row["payload"]), headers=headers)
        await conn.execute("UPDATE dead_letters SET replayed_at = now() WHERE id = %s", (letter_id,))
    return DeadLetter(**{**row, "payload": bytes(row["payload"])})


def describe(letter: DeadLetter) -> dict[str, Any]:
    """A JSON-friendly view for the CLI."""
    return {
        "id": letter.id,
        "consumer": letter.consumer,
        "subject": letter.subject,
        "event_id": letter.event_id,
        "error": letter.error,
        "deliveries": letter.deliveries,
        "parked_at": letter.parked_at.isoformat(),
        "replayed_at": letter.replayed_at.isoformat() if letter.replayed_at else None,
        "payload": letter.payload.decode("utf-8", "replace")[:500],
    }
