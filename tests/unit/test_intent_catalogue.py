"""An intent is one entry of the catalogue (services/housing/intent_catalogue.py): every intent on the wire
has exactly one, every table that decides by intent is derived from it, and the planner and the supervisor
act on what the entry says. Changing an entry here (no fake intent is added to the product) shows each
consumer following it."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from contracts.values import IntentType, StepFocus
from services.housing import intent_catalogue
from services.housing.intent_catalogue import (
    BY_SPECIFICITY,
    DOMAINS,
    ENTRIES,
    GUIDANCE_INTENTS,
    INTENT_OF_TOPIC,
    INTENTS,
    TOPICS,
    StepId,
    Topic,
)
from services.planner.intents import SIGNALS
from services.planner.plan_rules import plan_by_rules
from tests.unit.test_answer_composition import LEGAL, MARKET, answer_of

pytestmark = pytest.mark.unit

I = IntentType  # noqa: E741
SERVICES = Path(__file__).resolve().parents[2] / "services"


def test_every_intent_on_the_wire_has_exactly_one_entry() -> None:
    assert sorted(spec.intent for spec in ENTRIES) == sorted(IntentType)


def test_every_topic_has_exactly_one_entry() -> None:
    assert sorted(spec.topic for spec in TOPICS) == sorted(Topic)


def test_each_topic_argues_for_one_intent_and_the_signals_follow() -> None:
    argued = [topic for spec in ENTRIES for topic in spec.argued_by]
    assert sorted(argued) == sorted(set(Topic) - {Topic.ANALYSIS_ASK})
    assert all(signal.intent is INTENT_OF_TOPIC.get(signal.topic) for signal in SIGNALS)


def test_the_derived_tables_are_the_entries_in_their_order() -> None:
    assert BY_SPECIFICITY == tuple(s.intent for s in ENTRIES if not s.guidance)
    assert GUIDANCE_INTENTS == (I.UNCLEAR, I.IRRELEVANT)
    assert I.COMPREHENSIVE not in DOMAINS and set(DOMAINS) < set(BY_SPECIFICITY)


def test_no_other_module_keeps_a_table_by_intent() -> None:
    keyed = re.compile(r"(?:^\s*|\{\s*)(?:I|IntentType)\.[A-Z_]+\s*:", re.MULTILINE)  # a key, not an `if`
    found = [
        path.relative_to(SERVICES).as_posix()
        for path in SERVICES.rglob("*.py")
        if path.name != "intent_catalogue.py" and keyed.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_planner_starts_from_the_entrys_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = "강남구 아파트 시세 알려줘"
    assert "search-loan" not in [s.step_id for s in plan_by_rules(asked).steps]
    market = INTENTS[I.MARKET_INQUIRY]
    monkeypatch.setitem(
        intent_catalogue.INTENTS, I.MARKET_INQUIRY, replace(market, base_steps=(StepId.SEARCH_LOAN,))
    )
    assert "search-loan" in [s.step_id for s in plan_by_rules(asked).steps]


def test_the_composer_leads_with_the_result_the_entry_names(monkeypatch: pytest.MonkeyPatch) -> None:
    done = ((LEGAL, {"headline": "제7조에 따르면"}), (MARKET, {"headline": "강남구 전세 중앙값 10억원"}))
    assert answer_of(I.MARKET_INQUIRY, *done).startswith("강남구")
    market = INTENTS[I.MARKET_INQUIRY]
    monkeypatch.setitem(
        intent_catalogue.INTENTS, I.MARKET_INQUIRY, replace(market, answered_by=StepFocus.LEGAL)
    )
    assert answer_of(I.MARKET_INQUIRY, *done).startswith("제7조")
