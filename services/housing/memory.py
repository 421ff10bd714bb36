"""What Jipsa remembers of a person: one fold of their events, read by the projector (the `memories`
read model, shown to the person) and by the planner (the facts a later conversation is answered with).

The session's fold (conversation.py) reads the facts of a session's earlier turns; this one reads every
run of the person, and remembers besides the places and complexes they asked about, the kinds of
property and deal they looked at, and a line per conversation. Each item says the run it came from and
when it was said. A fact keeps its origin while the person's later turns only carry it along (the
planner copies remembered facts into a plan's intent); a turn that states a group of facts anew
replaces the group, as in a session. While remembering is off nothing new is remembered; 모두 잊기
(PersonForgotten) drops every item. Item ids are made of log positions, never of what was said, so the
event that forgets an item says nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from contracts import REGISTRY, Envelope, Event
from contracts.entities import QueryEntities
from contracts.gateway import QueryReceived
from contracts.people import MemoryItemForgotten, PersonForgotten, RememberingChanged
from contracts.planner import PlanReady
from services.housing.conversation import FACT_GROUPS, fact_text
from services.housing.labels import DEAL_LABELS, PROPERTY_LABELS

Kind = Literal["fact", "place", "property_type", "deal_type", "conversation"]
# Items of a kind other than a fact, newest kept: a memory is a few lines a person can read through.
KEPT_PER_KIND = 12
LINE_CHARS = 60  # of a conversation's first question, as its line
# The events the fold reads: what the planner and the projector ask the log for.
REMEMBERED_TYPES = (
    QueryReceived.event_type,
    PlanReady.event_type,
    MemoryItemForgotten.event_type,
    RememberingChanged.event_type,
    PersonForgotten.event_type,
)


class MemoryItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    kind: Kind
    key: str  # what the item is about (a fact's field, a place): a newer item of the same key replaces it
    value: str  # as the person reads it: '연소득 3,800만원', '관악구', '전세'
    amount: int | None = None  # a fact's figure, 만원
    run_id: str
    session_id: str | None
    said_at: datetime


class Memory(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    person_id: str
    remembering: bool = True
    items: tuple[MemoryItem, ...] = ()
    forgotten_at: datetime | None = None  # the last 모두 잊기: that one happened, not what it dropped


@dataclass(frozen=True)
class Said:
    """One of the person's events as the fold reads it."""

    position: int
    run_id: str
    session_id: str | None
    occurred_at: datetime
    event: Event

    @classmethod
    def of(cls, position: int, envelope: Envelope) -> Said:
        e = envelope
        event = REGISTRY.parse(e.event_type, e.schema_version, e.data)
        return cls(position, e.correlation_id, e.session_id, e.occurred_at, event)


def memory_of(person_id: str, said: Iterable[Said]) -> Memory:
    memory = Memory(person_id=person_id)
    for one in said:
        memory = remember(memory, one)
    return memory


def remember(memory: Memory, said: Said) -> Memory:
    match said.event:
        case MemoryItemForgotten(item_id=item_id):
            return memory.model_copy(update={"items": tuple(i for i in memory.items if i.item_id != item_id)})
        case RememberingChanged(remembering=on):
            return memory.model_copy(update={"remembering": on})
        case PersonForgotten():
            return memory.model_copy(update={"items": (), "forgotten_at": said.occurred_at})
        case _ if not memory.remembering:
            return memory
        case QueryReceived(query=query) if query:
            line = query if len(query) <= LINE_CHARS else query[: LINE_CHARS - 1] + "…"
            return _with(memory, [_item(said, "conversation", said.run_id, line, 0)])
        case PlanReady(intent=intent):
            return _with(memory, _items_of(memory, said, intent.entities))
    return memory


def recalled_facts(memory: Memory) -> dict[str, MemoryItem]:
    """The person's remembered facts, by field (empty while remembering is off)."""
    if not memory.remembering:
        return {}
    return {item.key: item for item in memory.items if item.kind == "fact"}


def _items_of(memory: Memory, said: Said, reading: QueryEntities) -> list[MemoryItem]:
    facts = recalled_facts(memory)
    items: list[MemoryItem] = []
    for group in FACT_GROUPS:
        stated = {name: v for name in group if (v := getattr(reading, name)) is not None}
        if stated and stated != {n: facts[n].amount for n in group if n in facts}:
            items += [_item(said, "fact", name, fact_text(name, v), name, v) for name, v in stated.items()]
    places = [*reading.gu, *reading.dong, *reading.stations, *reading.complexes]
    items += [_item(said, "place", place, place, n) for n, place in enumerate(places)]
    items += [
        _item(said, "property_type", kind, PROPERTY_LABELS[kind], n)
        for n, kind in enumerate(reading.property_types)
    ]
    if reading.deal_type is not None:
        items.append(_item(said, "deal_type", reading.deal_type, DEAL_LABELS[reading.deal_type], 0))
    return items


def _with(memory: Memory, new: list[MemoryItem]) -> Memory:
    """The memory with `new` items, each replacing an older one of its kind and key; a fact replaces its
    whole group (an old deposit never sits beside a new rent)."""
    if not new:
        return memory
    replaced = {(i.kind, i.key) for i in new}
    for item in new:
        if item.kind == "fact":
            group = next(g for g in FACT_GROUPS if item.key in g)
            replaced |= {("fact", name) for name in group}
    kept = [i for i in memory.items if (i.kind, i.key) not in replaced]
    items = [*kept, *new]
    for kind in ("place", "property_type", "deal_type", "conversation"):
        of_kind = [i for i in items if i.kind == kind]
        items = [i for i in items if i.kind != kind or i in of_kind[-KEPT_PER_KIND:]]
    return memory.model_copy(update={"items": tuple(items)})


def _item(
    said: Said, kind: Kind, key: str, value: str, n: int | str, amount: int | None = None
) -> MemoryItem:
    return MemoryItem(
        item_id=f"{kind}-{said.position}-{n}",
        kind=kind,
        key=key,
        value=value,
        amount=amount,
        run_id=said.run_id,
        session_id=said.session_id,
        said_at=said.occurred_at,
    )
