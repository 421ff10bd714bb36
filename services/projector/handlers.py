"""The projector's handler: a batch of the log in, the rows of the runs it touches out (todo and final
state, folded by todo.py and final_state.py) and of the people it touches (memories.py), inside the
transaction runner.py holds with the checkpoint."""

from __future__ import annotations

from psycopg import AsyncConnection

from contracts.people import PersonForgotten
from services.platform.sealing import KEYRING
from services.projector import final_state, todo
from services.projector.final_state import FinalState
from services.projector.folding import State, fold_runs
from services.projector.memories import fold_memories, load_memories, people_of, save_memories
from services.projector.recent import RecentStates
from services.projector.store import (
    Batch,
    Stand,
    clear_runs,
    load_final_states,
    load_todos,
    runs_events,
    runs_of_people,
    save_final_states,
    save_todos,
)
from services.projector.todo import Todo


class Held:
    """The todo and final state of the runs this projector wrote last (recent.py)."""

    def __init__(self) -> None:
        self.todos: RecentStates[Todo] = RecentStates()
        self.finals: RecentStates[FinalState] = RecentStates()


async def apply(conn: AsyncConnection, batch: Batch, held: Held) -> Stand:
    """Fold a batch into the rows of the runs it touches, inside the caller's transaction; return where
    those runs' rows stand now."""
    todos = held.todos.held(batch.todo_at)
    todos |= await load_todos(conn, sorted(r for r in batch.todo_at if r not in todos))
    finals = held.finals.held(batch.final_at)
    finals |= await load_final_states(conn, sorted(r for r in batch.final_at if r not in finals))
    new_todos = fold_runs(todo.evolve, batch.records, todos)
    new_finals = fold_runs(final_state.evolve, batch.records, finals)
    await save_todos(conn, _changed(todos, new_todos), todos)
    await save_final_states(conn, _changed(finals, new_finals), finals)
    await save_memories(
        conn, *fold_memories(batch.records, await load_memories(conn, people_of(batch.records)))
    )
    ended = {run_id for run_id, state in new_finals.items() if state.status in final_state.TERMINAL}
    held.todos.keep(new_todos.items(), ended)
    held.finals.keep(new_finals.items(), ended)
    stand = Stand(
        {run_id: state.last_position for run_id, state in new_todos.items()},
        {run_id: state.last_position for run_id, state in new_finals.items()},
    )
    forgotten = sorted(
        {r.person_id for r in batch.records if r.event_type == PersonForgotten.event_type and r.person_id}
    )
    if forgotten:
        refolded = await refold_forgotten(conn, forgotten, batch.records[-1].position, held)
        stand = Stand(stand.todo_at | refolded.todo_at, stand.final_at | refolded.final_at)
    return stand


async def refold_forgotten(conn: AsyncConnection, person_ids: list[str], up_to: int, held: Held) -> Stand:
    """The runs of people just forgotten, folded again from their first event up to `up_to`: their keys
    are deleted (sealing.py), so their rows now show the personal fields erased, as a rebuild makes
    them. Their rows are deleted and written anew; the states held of them are dropped."""
    for person_id in person_ids:
        KEYRING.forget_person(person_id)  # keys this process read before they were deleted
    run_ids = await runs_of_people(conn, person_ids, up_to)
    if not run_ids:
        return Stand({}, {})
    await clear_runs(conn, run_ids)
    held.todos.drop(run_ids)
    held.finals.drop(run_ids)
    records = await runs_events(conn, run_ids, up_to)
    todos = fold_runs(todo.evolve, records)
    finals = fold_runs(final_state.evolve, records)
    await save_todos(conn, list(todos.values()), {})
    await save_final_states(conn, list(finals.values()), {})
    return Stand(
        {run_id: state.last_position for run_id, state in todos.items()},
        {run_id: state.last_position for run_id, state in finals.items()},
    )


def _changed(before: dict[str, State], after: dict[str, State]) -> list[State]:
    return [state for run_id, state in after.items() if before.get(run_id) != state]
