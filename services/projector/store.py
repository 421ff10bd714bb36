"""The projection tables in Postgres: load a batch's runs, save what the folds made of them.

Rows are the fold's models, column for column (the column lists come from the
models), so a field added to a model fails loudly until the migration has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pydantic_core
from psycopg import AsyncConnection, AsyncCursor
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from pydantic import BaseModel

from services.platform.db import Statement
from services.platform.sealing import KEYRING, open_data, sealed_runs
from services.platform.wakeup import PROJECTIONS_CHANNEL
from services.projector.final_state import FinalState, history_entry
from services.projector.folding import Logged
from services.projector.todo import Todo, TodoStep

CHECKPOINT = "projections"

# Every projection table and its primary key: what a rebuild clears and a digest reads, in that order.
PROJECTION_TABLES: dict[str, str] = {
    "todos": "run_id",
    "todo_steps": "run_id, step_id",
    "final_states": "run_id",
    "session_runs": "session_id, run_id",
    "memories": "person_id",
}

_TODO_COLUMNS = ("run_id", "session_id", "last_position")


class MissingCheckpoint(RuntimeError):
    """The checkpoint row is seeded by migration 0002; without it the database is not migrated."""


async def lock_checkpoint(conn: AsyncConnection, name: str = CHECKPOINT) -> int:
    """The checkpoint, locked until the transaction ends: one projector at a time applies a batch."""
    return await _checkpoint(conn, name, for_update=True)


async def read_checkpoint(conn: AsyncConnection, name: str = CHECKPOINT) -> int:
    return await _checkpoint(conn, name, for_update=False)


async def save_checkpoint(conn: AsyncConnection, position: int) -> None:
    """Move the projections' checkpoint; its notice, delivered at commit, says where they are now
    (the gateway's follower reads up to it). One statement for both, and for this: the transaction's
    commit does not wait for its WAL to reach the disk. The projections are folds of the log, not
    facts: a crash of the machine may lose the last batches together with the checkpoint that counts
    them, and the projector folds them again from the log, whose appends do wait for the disk."""
    await conn.execute(
        "WITH saved AS (UPDATE checkpoints SET position = %s, updated_at = now() WHERE name = %s"
        " RETURNING position) SELECT pg_notify(%s, position::text),"
        " set_config('synchronous_commit', 'off', true) FROM saved",
        (position, CHECKPOINT, PROJECTIONS_CHANNEL),
    )


_CHECKPOINT_SQL = "SELECT position FROM checkpoints WHERE name = %s"
_LOCK_SQL = f"{_CHECKPOINT_SQL} FOR UPDATE"


async def _checkpoint(conn: AsyncConnection, name: str, *, for_update: bool) -> int:
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(_LOCK_SQL if for_update else _CHECKPOINT_SQL, (name,))
    return position_of(await cur.fetchall(), name)


def position_of(rows: list[dict[str, Any]], name: str = CHECKPOINT) -> int:
    """The checkpoint's position from the rows that read it."""
    if not rows:
        raise MissingCheckpoint(f"no checkpoint {name!r}: run the migrations (alembic upgrade head)")
    return rows[0]["position"]


async def clear(conn: AsyncConnection) -> None:
    """Empty every projection table. DELETE rather than TRUNCATE: inside a rebuild's transaction,
    readers keep seeing the old rows (MVCC) until the rebuilt ones commit, instead of blocking."""
    for table in reversed(PROJECTION_TABLES):
        await conn.execute(f"DELETE FROM {table}")


# What a fold reads of each event (folding.Logged), in its fields' order.
_LOGGED_COLUMNS = (
    "e.position, e.event_type, e.schema_version, e.correlation_id AS run_id,"
    " e.metadata->>'session_id' AS session_id, e.metadata->>'occurred_at' AS occurred_at, e.data,"
    " e.metadata->>'person_id' AS person_id"
)
_BATCH_SQL = (
    f"SELECT {_LOGGED_COLUMNS}, t.last_position AS todo_at, f.last_position AS final_at"
    " FROM events e LEFT JOIN todos t ON t.run_id = e.correlation_id"
    " LEFT JOIN final_states f ON f.run_id = e.correlation_id"
    f" WHERE e.position > ({_CHECKPOINT_SQL}) ORDER BY e.position LIMIT %s"
)


@dataclass(frozen=True)
class Stand:
    """Where runs' rows stand: the `last_position` of each one's todo and of its final state (a run with
    no row is left out)."""

    todo_at: dict[str, int]
    final_at: dict[str, int]


@dataclass(frozen=True)
class Batch(Stand):
    """The events after the checkpoint, and where their runs' rows stand."""

    records: list[Logged]


def locked_batch(limit: int) -> tuple[Statement, Statement]:
    """The statements that lock the checkpoint, then read the batch after it with where its runs' rows
    stand: sent with their transaction's BEGIN (db.transaction), read with `position_of` and `batch_of`.
    The read is a statement of its own, after the lock's: a statement's snapshot is taken when it
    starts, so one that waited for the lock sees the rows the replica it waited for had just committed."""
    return (_LOCK_SQL, (CHECKPOINT,)), (_BATCH_SQL, (CHECKPOINT, limit))


_EVENTS_AFTER_SQL = (
    f"SELECT {_LOGGED_COLUMNS} FROM events e WHERE e.position > %s ORDER BY e.position LIMIT %s"
)


async def events_after(conn: AsyncConnection, position: int, limit: int) -> AsyncCursor[dict[str, Any]]:
    """The events after `position`, asked for: in a pipeline the statement goes out now and its rows are
    fetched later (`logged_in`), so Postgres reads them while the caller works. A rebuild folds one
    batch while the next is read: the rebuild is the only writer of the projections while it holds the
    checkpoint, so it needs no join to learn where the runs' rows stand (it wrote them)."""
    return await conn.cursor(row_factory=dict_row).execute(_EVENTS_AFTER_SQL, (position, limit))


async def logged_in(cursor: AsyncCursor[dict[str, Any]]) -> list[Logged]:
    rows = await cursor.fetchall()
    await load_keys(cursor.connection, rows)
    return [_logged(row) for row in rows]


async def load_keys(conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
    """Read the keys of the sealed payloads among `rows` that this process has not read (sealing.py)."""
    await KEYRING.load(conn, sealed_runs((r["data"], r["run_id"]) for r in rows))


async def runs_of_people(conn: AsyncConnection, person_ids: list[str], up_to: int) -> list[str]:
    """The runs of the people's sessions with an event at or before `up_to` (the `events_person` index)."""
    cur = await conn.cursor(row_factory=dict_row).execute(
        "SELECT DISTINCT correlation_id FROM events WHERE metadata->>'person_id' = ANY(%s)"
        " AND position <= %s AND stream_id LIKE 'run-%%'",
        (person_ids, up_to),
    )
    return sorted(r["correlation_id"] for r in await cur.fetchall())


async def runs_events(conn: AsyncConnection, run_ids: list[str], up_to: int) -> list[Logged]:
    """Every event of `run_ids` at or before `up_to`, in log order, as the folds read them."""
    cur = await conn.cursor(row_factory=dict_row).execute(
        f"SELECT {_LOGGED_COLUMNS} FROM events e WHERE e.correlation_id = ANY(%s) AND e.position <= %s"
        " ORDER BY e.position",
        (run_ids, up_to),
    )
    return await logged_in(cur)


async def clear_runs(conn: AsyncConnection, run_ids: list[str]) -> None:
    """Delete the runs' rows from the run projections (todos, their steps, final states, history)."""
    for table in ("todo_steps", "todos", "final_states", "session_runs"):
        await conn.execute(f"DELETE FROM {table} WHERE run_id = ANY(%s)", (run_ids,))


def batch_of(rows: list[dict[str, Any]]) -> Batch:
    return Batch(
        {r["run_id"]: r["todo_at"] for r in rows if r["todo_at"] is not None},
        {r["run_id"]: r["final_at"] for r in rows if r["final_at"] is not None},
        [_logged(r) for r in rows],
    )


def _logged(row: dict[str, Any]) -> Logged:
    return Logged(
        row["position"],
        row["event_type"],
        row["schema_version"],
        row["run_id"],
        row["session_id"],
        datetime.fromisoformat(row["occurred_at"]),  # as the envelope's model reads the same ISO text
        open_data(row["data"], row["run_id"]),
        row["person_id"],
    )


async def load_todos(conn: AsyncConnection, run_ids: list[str]) -> dict[str, Todo]:
    if not run_ids:
        return {}
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(f"SELECT {', '.join(_TODO_COLUMNS)} FROM todos WHERE run_id = ANY(%s)", (run_ids,))
    todos = {r["run_id"]: r for r in await cur.fetchall()}
    step_columns = ", ".join(TodoStep.model_fields)
    await cur.execute(
        f"SELECT run_id, {step_columns} FROM todo_steps WHERE run_id = ANY(%s) ORDER BY run_id, ordinal",
        (run_ids,),
    )
    steps: dict[str, list[dict[str, Any]]] = {run_id: [] for run_id in todos}
    for row in await cur.fetchall():
        steps[row.pop("run_id")].append(row)
    return {run_id: Todo.model_validate({**row, "steps": steps[run_id]}) for run_id, row in todos.items()}


async def save_todos(conn: AsyncConnection, todos: list[Todo], stored: Mapping[str, Todo]) -> None:
    """Upsert each run's todo and, of its steps, only those that changed; a step an edited plan dropped
    or renamed is deleted. Most events of a run change one step, or none (a rewrite of every step
    at each change was two thirds of a market question's writes to the projections)."""
    if not todos:
        return
    await _upsert(conn, "todos", "run_id", [_todo_row(t) for t in todos])
    changed: list[dict[str, Any]] = []
    gone_runs: list[str] = []
    gone_steps: list[str] = []
    for todo in todos:
        before = {s.step_id: s for s in stored[todo.run_id].steps} if todo.run_id in stored else {}
        changed += [
            {"run_id": todo.run_id, **step.model_dump(mode="json")}
            for step in todo.steps
            if before.get(step.step_id) != step
        ]
        for step_id in before.keys() - {s.step_id for s in todo.steps}:
            gone_runs.append(todo.run_id)
            gone_steps.append(step_id)
    if gone_steps:
        await conn.execute(
            "DELETE FROM todo_steps WHERE (run_id, step_id) IN"
            " (SELECT * FROM unnest(%s::text[], %s::text[]))",
            (gone_runs, gone_steps),
        )
    await _upsert(conn, "todo_steps", "run_id, step_id", changed)


async def load_final_states(conn: AsyncConnection, run_ids: list[str]) -> dict[str, FinalState]:
    if not run_ids:
        return {}
    columns = ", ".join(FinalState.model_fields)
    cur = await conn.cursor(row_factory=dict_row).execute(
        f"SELECT {columns} FROM final_states WHERE run_id = ANY(%s)", (run_ids,)
    )
    return {r["run_id"]: FinalState.model_validate(r) for r in await cur.fetchall()}


async def save_final_states(
    conn: AsyncConnection, states: list[FinalState], stored: Mapping[str, FinalState]
) -> None:
    """Write each run's final state and, with it, its line in the session's history. A run `stored` has
    only its changed columns updated: an unchanged jsonb value (the run's step results, its answer) is
    not dumped, compressed and logged again at every event of the run."""
    new = [s for s in states if s.run_id not in stored]
    await _upsert(conn, "final_states", "run_id", new)
    by_change: dict[frozenset[str], list[FinalState]] = {}
    for state in states:
        if (before := stored.get(state.run_id)) is not None:
            changed = frozenset(c for c in FinalState.model_fields if getattr(state, c) != getattr(before, c))
            by_change.setdefault(changed, []).append(state)
    for changed, alike in by_change.items():
        await _update(conn, "final_states", "run_id", changed, alike)
    history = [
        entry
        for state in states
        if (entry := history_entry(state)) is not None
        and (state.run_id not in stored or entry != history_entry(stored[state.run_id]))
    ]
    await _upsert(conn, "session_runs", "session_id, run_id", history)


def _todo_row(todo: Todo) -> dict[str, Any]:
    return {
        "run_id": todo.run_id,
        "session_id": todo.session_id,
        "total_steps": len(todo.steps),
        "finished_steps": todo.finished_steps,
        "progress_pct": todo.progress_pct,
        "last_position": todo.last_position,
    }


async def _upsert(
    conn: AsyncConnection, table: str, key: str, rows: Sequence[BaseModel] | Sequence[dict[str, Any]]
) -> None:
    """Insert or update `rows` in one statement: Postgres reads them from one JSON array, and a row is a
    model whose fields are the table's columns, or a dict keyed by them. A statement per row
    (executemany) cost psycopg a bind of every value and Postgres a plan execution each: two fifths of
    a rebuild's time in a profile. pydantic writes the array straight from the models, where dumping
    them to dicts first and those to JSON walked a run's step results and answer twice."""
    if not rows:
        return
    first = rows[0]
    columns = list(type(first).model_fields if isinstance(first, BaseModel) else first)
    keys = key.split(", ")
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in keys)
    listed = ", ".join(columns)
    await conn.execute(
        f"INSERT INTO {table} ({listed}) SELECT {listed} FROM jsonb_populate_recordset(NULL::{table}, %s)"
        f" ON CONFLICT ({key}) DO UPDATE SET {updates}",
        (Jsonb(rows, dumps=pydantic_core.to_json),),
    )


async def _update(
    conn: AsyncConnection, table: str, key: str, columns: frozenset[str], models: Sequence[BaseModel]
) -> None:
    """Set `columns` of the models' rows, in one statement: the batch's runs whose fold changed the same
    columns (most often the same few: a status, a time, the position reached)."""
    if not columns:
        return
    listed = sorted(columns)
    include = {key, *listed}
    document = b"[" + b",".join(pydantic_core.to_json(m, include=include) for m in models) + b"]"
    await conn.execute(
        f"UPDATE {table} AS t SET {', '.join(f'{c} = x.{c}' for c in listed)}"
        f" FROM jsonb_populate_recordset(NULL::{table}, %s) AS x WHERE t.{key} = x.{key}",
        (Jsonb(document, dumps=bytes),),
    )
