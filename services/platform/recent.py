"""A bounded map that forgets what was used least recently: what a service keeps in memory of the runs
in flight, so that handling a run's next event need not read and fold all of its past again. Kept small
and rid of ended runs: every object held is walked by each full garbage collection (heap.py)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

RUNS_HELD = 128  # runs in flight at once, with room: a run's state is thousands of Python objects
K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    def __init__(self, capacity: int = RUNS_HELD) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def drop(self, key: K) -> None:
        self._entries.pop(key, None)

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
