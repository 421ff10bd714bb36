"""What the gateway reads from Postgres: the log (by position, by session, by run) and the projections.

The log is read through its owner, the event store (services/platform/store_reads.py), on a
connection waited for at most `acquire_timeout_s`. The projection tables, the `projections`
checkpoint and its `jipsa_projections` notice are the projector's published read side (its read
models exist to be queried); the gateway names them here and imports nothing of the projector.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any, TypeVar

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from services.gateway.feed.messages import EXECUTION_BEGINNINGS, RunFacts, TodoSnapshot
from services.platform import store_reads
from services.platform.db import run_again_on_closed
from services.platform.eventstore import Recorded

PROJECTIONS_CHECKPOINT = "projections"
T = TypeVar("T")
TODO_STEP_COLUMNS = (  # of todo_steps s, in the todo_updated message's shape
    "s.step_id, s.team, s.task, s.depends_on, s.status, s.attempt, s.started_at, s.completed_at,"
    " s.duration_ms, s.summary, s.error"
)


class Reads:
    def __init__(
        self, pool: AsyncConnectionPool, acquire_timeout_s: float = 30.0, held: AsyncConnection | None = None
    ) -> None:
        self.pool, self.acquire_timeout_s, self.held = pool, acquire_timeout_s, held

    def connection(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A connection of the pool, waited for at most `acquire_timeout_s`: with Postgres unreachable
        the pool has none to give, and a request is told so (PoolTimeout, a 503) instead of waiting."""
        return self.pool.connection(timeout=self.acquire_timeout_s)

    def on(self, conn: AsyncConnection) -> Reads:
        """These reads on `conn`, one connection for several (the follower reads three or four times
        per batch)."""
        return Reads(self.pool, self.acquire_timeout_s, conn)

    async def head(self) -> int:
        return await self._log(store_reads.head)

    async def checkpoint(self) -> int:
        """How far the projections are built: the follower never reads the log past it."""
        row = await self._one("SELECT position FROM checkpoints WHERE name = %s", (PROJECTIONS_CHECKPOINT,))
        return row["position"] if row else 0

    async def events_after(self, after: int, limit: int) -> tuple[list[Recorded], int | None]:
        """The log after `after` (at most `limit` events) and how far the projections were built when it
        was read (None when nothing was)."""
        return await self._log(store_reads.events_and_checkpoint, after, limit, PROJECTIONS_CHECKPOINT)

    async def session_events(self, session_id: str, after: int, up_to: int, limit: int) -> list[Recorded]:
        return await self._log(store_reads.session_events, session_id, after, up_to, limit)

    async def run_events(self, run_id: str, after: int, limit: int) -> list[Recorded]:
        return await self._log(store_reads.run_events, run_id, after, limit)

    async def first_of_run(self, run_id: str) -> Recorded | None:
        """The run's first event, its QueryReceived: its session is the one that owns the run."""
        rows = await self.run_events(run_id, after=0, limit=1)
        return rows[0] if rows else None

    async def latest_of_run(self, run_id: str, event_type: str) -> Recorded | None:
        return await self._log(store_reads.latest_of_run, run_id, event_type)

    async def runs_awaiting_approval(self, session_id: str) -> list[str]:
        return await self._log(store_reads.runs_awaiting_approval, session_id)

    async def runs_holding_todo(self, session_id: str, todo_id: str) -> list[str]:
        """The session's unfinished runs with a todo (step) of this id not yet settled."""
        rows = await self._all(
            "SELECT t.run_id FROM todo_steps t JOIN session_runs s ON s.run_id = t.run_id"
            " WHERE s.session_id = %s AND t.step_id = %s AND t.status IN ('pending', 'in_progress')"
            " ORDER BY s.created_at",
            (session_id, todo_id),
        )
        return [r["run_id"] for r in rows]

    async def open_forms(self, session_id: str) -> list[Recorded]:
        return await self._log(store_reads.open_forms, session_id)

    async def facts(self, records: Iterable[Recorded]) -> dict[str, RunFacts]:
        """What the message mapping needs beyond the events, for every run among `records`."""
        run_ids = sorted({r.envelope.correlation_id for r in records})
        if not run_ids:
            return {}

        async def read(conn: AsyncConnection) -> dict[str, RunFacts]:
            todos = await _todos(conn, run_ids)
            began = await store_reads.first_positions(conn, run_ids, EXECUTION_BEGINNINGS)
            return {run: RunFacts(todo=todos.get(run), execution_began_at=began.get(run)) for run in run_ids}

        return await self._read(read)

    async def session_runs(self, session_id: str, limit: int = 100) -> list[dict[str, Any]]:
        rows = await self._all(
            "SELECT run_id, query, status, created_at FROM session_runs WHERE session_id = %s"
            " ORDER BY created_at DESC NULLS LAST, run_id LIMIT %s",
            (session_id, limit),
        )
        return [_json_ready(r) for r in rows]

    async def final_state(self, run_id: str) -> dict[str, Any] | None:
        row = await self._one("SELECT * FROM final_states WHERE run_id = %s", (run_id,))
        return _json_ready(row) if row else None

    async def todo(self, run_id: str) -> TodoSnapshot | None:
        return (await self._read(lambda conn: _todos(conn, [run_id]))).get(run_id)

    async def _log(self, read: Callable[..., Awaitable[T]], *args: Any) -> T:
        """One of the event store's reads (store_reads.py)."""
        return await self._read(lambda conn: read(conn, *args))

    async def _one(self, sql: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        async def read(conn: AsyncConnection) -> dict[str, Any] | None:
            return await (await conn.cursor(row_factory=dict_row).execute(sql, params)).fetchone()

        return await self._read(read)

    async def _all(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        async def read(conn: AsyncConnection) -> list[dict[str, Any]]:
            return await (await conn.cursor(row_factory=dict_row).execute(sql, params)).fetchall()

        return await self._read(read)

    async def _read(self, read: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """`read` on the connection these reads are bound to, or on one of the pool taken without the
        checkout's check: a read is safe to run again on another when the server has closed it
        (db.run_again_on_closed), and the checkout waits at most `acquire_timeout_s`."""
        if self.held is not None:
            return await read(self.held)
        return await run_again_on_closed(self.pool, read, timeout=self.acquire_timeout_s)


async def _todos(conn: AsyncConnection, run_ids: list[str]) -> dict[str, TodoSnapshot]:
    """The runs' todos, progress and steps in one statement (so one snapshot): a row per step, and one
    for a todo without steps."""
    cur = await conn.cursor(row_factory=dict_row).execute(
        f"SELECT t.run_id, t.progress_pct, s.ordinal, {TODO_STEP_COLUMNS} FROM todos t"
        " LEFT JOIN todo_steps s ON s.run_id = t.run_id"
        " WHERE t.run_id = ANY(%s) ORDER BY t.run_id, s.ordinal",
        (run_ids,),
    )
    todos: dict[str, TodoSnapshot] = {}
    for row in await cur.fetchall():
        run_id, progress, ordinal = row.pop("run_id"), row.pop("progress_pct"), row.pop("ordinal")
        todo = todos.setdefault(run_id, TodoSnapshot(progress, []))
        if ordinal is not None:
            todo.steps.append(_json_ready(row))
    return todos


def _json_ready(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()}


async def session_document(reads: Reads, artifact_id: str, session_id: str) -> tuple[str, str, bytes] | None:
    """(name, media_type, bytes) of a generated document (산출물) the session owns; None for another
    session's, or none at all. The document service's `load_document` query: the gateway imports no
    other service, so it names the `documents` table (that service's published read side) itself."""
    async with reads.connection() as conn:
        cur = await conn.cursor(row_factory=dict_row).execute(
            "SELECT name, media_type, content FROM documents WHERE artifact_id = %s AND session_id = %s",
            (artifact_id, session_id),
        )
        row = await cur.fetchone()
    return (row["name"], row["media_type"], bytes(row["content"])) if row else None
