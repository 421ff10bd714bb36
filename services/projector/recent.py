"""The states a projector wrote last, kept in memory: a batch that touches a run again folds on from them
instead of reading the run's rows back (a final state carries the run's step results and answer, tens of
kilobytes) and validating them again.

A held state is used only while the run's stored row has the `last_position` it was written with. Another
replica may have moved the run since (replicas take the checkpoint lock in turn), a rebuild may have cleared
it, the batch that wrote it may have rolled back: each shows as another position or no row. A fold of the
same events is the same state, so the same position means the same state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic

from services.platform.recent import Recent
from services.projector.folding import State


class RecentStates(Generic[State]):
    def __init__(self) -> None:
        self._states: Recent[str, State] = Recent()

    def held(self, stored_at: Mapping[str, int]) -> dict[str, State]:
        """The held states of the runs whose rows are stored at the position they were written with."""
        held = {}
        for run_id, position in stored_at.items():
            state = self._states.get(run_id)
            if state is not None and state.last_position == position:
                held[run_id] = state
        return held

    def keep(self, states: Iterable[tuple[str, State]], ended: set[str]) -> None:
        """Hold `states`, but none of an `ended` run: its next event, if any, is rare."""
        for run_id, state in states:
            if run_id in ended:
                self._states.drop(run_id)
            else:
                self._states.put(run_id, state)

    def drop(self, run_ids: Iterable[str]) -> None:
        for run_id in run_ids:
            self._states.drop(run_id)
