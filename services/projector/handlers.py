"""The projector's handler: a batch of the log in, the rows of the runs it touches out (todo and final
state, folded by todo.py and final_state.py), inside the transaction runner.py holds with the checkpoint."""

from __future__ import annotations

from psycopg import AsyncConnection

from services.platform.eventstore import Recorded
from services.projector import final_state, todo
from services.projector.folding import State, fold_runs
from services.projector.store import load_final_states, load_todos, save_final_states, save_todos


async def apply(conn: AsyncConnection, records: list[Recorded]) -> None:
    """Fold a batch into the rows of the runs it touches, inside the caller's transaction."""
    run_ids = sorted({r.envelope.correlation_id for r in records})
    todos = await load_todos(conn, run_ids)
    finals = await load_final_states(conn, run_ids)
    await save_todos(conn, _changed(todos, fold_runs(todo.evolve, records, todos)))
    await save_final_states(conn, _changed(finals, fold_runs(final_state.evolve, records, finals)))


def _changed(before: dict[str, State], after: dict[str, State]) -> list[State]:
    return [state for run_id, state in after.items() if before.get(run_id) != state]
