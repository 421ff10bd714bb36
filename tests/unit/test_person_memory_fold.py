"""The one memory fold (services/housing/memory.py): what a person's events leave remembered, and where
each item came from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from contracts import Event
from contracts.gateway import QueryReceived
from contracts.people import MemoryItemForgotten, PersonForgotten, RememberingChanged
from contracts.planner import PlanReady
from contracts.values import Intent, IntentType
from services.housing.memory import Memory, Said, memory_of, recalled_facts
from services.planner.remembered import facts_of_person

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def said(position: int, event: Event, run: str = "r1", session: str = "s1") -> Said:
    return Said(position, run, session, T0 + timedelta(minutes=position), event)


def plan(run: str, **entities: object) -> PlanReady:
    intent = Intent(type=IntentType.MARKET_INQUIRY, confidence=0.9, entities=entities)
    return PlanReady(run_id=run, intent=intent, mode="rules")


def test_a_fact_keeps_the_run_it_was_said_in_while_later_turns_carry_it() -> None:
    memory = memory_of(
        "p",
        [
            said(1, QueryReceived(run_id="r1", query="연봉 3800이에요")),
            said(2, plan("r1", income_manwon=3800, gu=["관악구"], deal_type="jeonse")),
            said(3, plan("r2", income_manwon=3800, gu=["관악구"]), run="r2", session="s2"),
        ],
    )
    (income,) = recalled_facts(memory).values()
    assert (income.value, income.run_id, income.said_at) == (
        "연소득 3,800만원",
        "r1",
        T0 + timedelta(minutes=2),
    )
    places = [i for i in memory.items if i.kind == "place"]
    assert [(p.value, p.run_id) for p in places] == [("관악구", "r2")]  # asked again: the newest ask
    assert facts_of_person(memory, "s2").recalled == {"income_manwon"}
    assert facts_of_person(memory, "s1").recalled == frozenset()  # the same conversation: not '지난번'


def test_a_lease_stated_anew_replaces_the_whole_group() -> None:
    memory = memory_of(
        "p",
        [
            said(1, plan("r1", deposit_manwon=10000, monthly_rent_manwon=40)),
            said(2, plan("r2", deposit_manwon=20000)),
        ],
    )
    assert {k: i.amount for k, i in recalled_facts(memory).items()} == {"deposit_manwon": 20000}


def test_forgetting_an_item_turning_remembering_off_and_forgetting_everything() -> None:
    stated = [said(1, plan("r1", income_manwon=3800, gu=["관악구"]))]
    item_id = next(i.item_id for i in memory_of("p", stated).items if i.kind == "fact")
    assert "3800" not in item_id and "관악구" not in item_id  # ids say nothing of what was said

    forgotten = memory_of("p", [*stated, said(2, MemoryItemForgotten(person_id="p", item_id=item_id))])
    assert recalled_facts(forgotten) == {} and [i.value for i in forgotten.items] == ["관악구"]

    off = [*stated, said(2, RememberingChanged(person_id="p", remembering=False))]
    assert recalled_facts(memory_of("p", off)) == {}
    later = memory_of("p", [*off, said(3, plan("r2", income_manwon=5000, gu=["마포구"]), run="r2")])
    assert "마포구" not in [i.value for i in later.items]  # nothing new is remembered while off

    everything = memory_of("p", [*stated, said(4, PersonForgotten(person_id="p"))])
    assert everything == Memory(person_id="p", forgotten_at=T0 + timedelta(minutes=4))
