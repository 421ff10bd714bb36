"""The `memories` read model: per person, what Jipsa remembers of them, folded by the domain's one
memory fold (services/housing/memory.py, which the planner folds the same events with) from the events
of the person's runs and of their own stream."""

from __future__ import annotations

from collections.abc import Iterable

import pydantic_core
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from services.housing.memory import REMEMBERED_TYPES, Memory, Said, remember
from services.projector.folding import Logged

_REMEMBERED = frozenset(REMEMBERED_TYPES)


def fold_memories(
    records: Iterable[Logged], memories: dict[str, Memory]
) -> tuple[dict[str, Memory], dict[str, int]]:
    """The memories of the people the records are of, folded on from `memories`, and per person the last
    position folded."""
    folded = dict(memories)
    reached: dict[str, int] = {}
    for r in records:
        if r.person_id is None or r.event_type not in _REMEMBERED:
            continue
        said = Said(r.position, r.run_id, r.session_id, r.occurred_at, r.event())
        folded[r.person_id] = remember(folded.get(r.person_id) or Memory(person_id=r.person_id), said)
        reached[r.person_id] = r.position
    return folded, reached


def people_of(records: Iterable[Logged]) -> list[str]:
    return sorted({r.person_id for r in records if r.person_id is not None and r.event_type in _REMEMBERED})


async def load_memories(conn: AsyncConnection, person_ids: list[str]) -> dict[str, Memory]:
    if not person_ids:
        return {}
    cur = await conn.cursor(row_factory=dict_row).execute(
        "SELECT person_id, remembering, items, forgotten_at FROM memories WHERE person_id = ANY(%s)",
        (person_ids,),
    )
    return {r["person_id"]: Memory.model_validate(r) for r in await cur.fetchall()}


async def save_memories(conn: AsyncConnection, memories: dict[str, Memory], reached: dict[str, int]) -> None:
    """Upsert the memories folded up to `reached`, one statement."""
    if not reached:
        return
    rows = [{**memories[p].model_dump(mode="json"), "last_position": at} for p, at in reached.items()]
    await conn.execute(
        "INSERT INTO memories (person_id, remembering, items, forgotten_at, last_position)"
        " SELECT person_id, remembering, items, forgotten_at, last_position"
        " FROM jsonb_populate_recordset(NULL::memories, %s)"
        " ON CONFLICT (person_id) DO UPDATE SET remembering = EXCLUDED.remembering, items = EXCLUDED.items,"
        " forgotten_at = EXCLUDED.forgotten_at, last_position = EXCLUDED.last_position",
        (Jsonb(rows, dumps=pydantic_core.to_json),),
    )
