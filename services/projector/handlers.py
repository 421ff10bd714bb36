"""The projector's handler: a batch of the log in, the rows of the runs it touches out (todo and final
state, folded by todo.py and final_state.py) and of the people it touches (memories.py), inside the
transaction runner.py holds with the checkpoint."""

from __future__ import annotations

from psycopg import AsyncConnection

from services.projector import final_state, todo
from services.projector.final_state import FinalState
from services.projector.folding import State, fold_runs
from services.projector.memories import fold_memories, load_memories, people_of, save_memories
from services.projector.recent import RecentStates
from services.projector.store import (
    Batch,
    Stand,
    load_final_states,
    load_todos,
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
    return Stand(
        {run_id: state.last_position for run_id, state in new_todos.items()},
        {run_id: state.last_position for run_id, state in new_finals.items()},
    )


def _changed(before: dict[str, State], after: dict[str, State]) -> list[State]:
    return [state for run_id, state in after.items() if before.get(run_id) != state]
