"""The analysis team over real NATS and Postgres: StepStarted{team: analysis} in, StepCompleted out."""

from __future__ import annotations

import json
import uuid

import pytest
from nats.aio.client import Client as NATS

from contracts import Envelope, new_envelope
from contracts.results import StepResult
from contracts.supervisor import StepStarted, StepStartedV2
from contracts.teams import StepCompleted
from contracts.values import Team
from services.analysis.bootstrap import load_library
from services.analysis.handlers import analysis_work
from services.housing.entities import extract_entities
from services.platform.consumer import Consumer
from services.platform.eventstore import EventStore
from services.platform.publisher import Publisher
from services.platform.settings import InfraSettings
from services.platform.team import team_subscription
from tests.integration.bus_helpers import running, wait_until

pytestmark = pytest.mark.integration

SEARCH_RESULT = {
    "headline": "마포구 아파트 매매 3곳",
    "listings": [
        {
            "listing_id": "101",
            "kind": "complex",
            "name": "공덕래미안",
            "property_type": "apartment",
            "gu": "마포구",
            "dong": "공덕동",
            "deal_type": "sale",
            "price_min_manwon": 100000,
            "price_max_manwon": 120000,
        },
        {
            "listing_id": "102",
            "kind": "complex",
            "name": "마포자이",
            "property_type": "apartment",
            "gu": "마포구",
            "dong": "공덕동",
            "deal_type": "sale",
            "price_min_manwon": 90000,
            "price_max_manwon": 110000,
        },
        {
            "listing_id": "103",
            "kind": "complex",
            "name": "신공덕",
            "property_type": "apartment",
            "gu": "마포구",
            "dong": "신공덕동",
            "deal_type": "sale",
            "price_min_manwon": 80000,
            "price_max_manwon": 90000,
        },
    ],
}


def step_started(run: str, query: str, focus: list[str], result_events=None):
    event = StepStarted(
        run_id=run,
        step_id="analysis-1",
        team=Team.ANALYSIS,
        task="분석",
        inputs={"query": query, "focus": focus, "entities": reading_of(query)},
        result_events=result_events or {},
        timeout_s=30,
    )
    return new_envelope(event, stream_id=f"run-{run}", correlation_id=run, session_id="s")


def step_completed(run: str, step_id: str, result: dict):
    event = StepCompleted(
        run_id=run, step_id=step_id, team=Team.SEARCH, summary="검색", result=result, duration_ms=1
    )
    return new_envelope(event, stream_id=f"run-{run}", correlation_id=run, session_id="s")


async def answer_of(store: EventStore, nc: NATS, infra: InfraSettings, started, *before) -> dict[str, dict]:
    """Run the publisher and the analysis team until the step is answered; the payload of each event the
    step caused, by type. `before`: the events it names (its dependencies' StepCompleted), stored first."""
    await store.append([*before, started])
    work = analysis_work(load_library())
    team = Consumer(team_subscription(Team.ANALYSIS, work), store.pool, nc, infra)
    async with running(Publisher(store.pool, nc, infra), team):
        await wait_until(lambda: _answered(store, started), what="the step answered")
    return {e.event_type: e.data for e in await _caused_by(store, started)}


async def _caused_by(store: EventStore, started) -> list:
    records = await store.read_correlation(started.correlation_id)
    return [r.envelope for r in records if r.envelope.causation_id == started.event_id]


async def _answered(store: EventStore, started) -> bool:
    return bool({e.event_type for e in await _caused_by(store, started)} & {"StepCompleted", "StepFailed"})


async def test_a_rent_increase_step_is_answered_with_the_percentage_and_articles(store, nc, infra) -> None:
    run = f"r{uuid.uuid4().hex[:8]}"
    started = step_started(run, "전세금 3억인데 3억 5천으로 올려달래요", ["rent_increase"])
    events = await answer_of(store, nc, infra, started)
    assert "StepFailed" not in events
    result = StepResult.model_validate(events["StepCompleted"]["result"])
    figures = {f.label: f.value for f in result.figures}
    assert figures["요구 인상률 (보증금)"] == 16.67 and figures["법정 상한 보증금 (5% 인상)"] == 31500
    cited = {c.article_id for c in result.citations}
    assert {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조", "주택임대차보호법/제6조의3"} <= cited
    decision = events["ToolDecisionRecorded"]
    assert decision["selected_tools"] == ["rent_increase"]
    assert json.loads(decision["outcome"])["rent_increase"]["ok"] is True


def named_in_v3(run: str, query: str, focus: list[str]) -> list[Envelope]:
    """The search's StepCompleted, then a StepStarted naming it, as today's supervisor dispatches."""
    searched = step_completed(run, "search-1", SEARCH_RESULT)
    return [searched, step_started(run, query, focus, {"search-1": searched.event_id})]


def copied_in_v2(run: str, query: str, focus: list[str]) -> list[Envelope]:
    """A StepStarted recorded as v2 with the search's result copied in (one in flight at the upgrade), the
    search's StepCompleted left out: a team must answer it from its copies alone."""
    inputs = {"query": query, "focus": focus, "entities": reading_of(query)}
    event = StepStartedV2(
        run_id=run,
        step_id="analysis-1",
        team=Team.ANALYSIS,
        task="분석",
        inputs=inputs,
        dependency_results={"search-1": SEARCH_RESULT},
        timeout_s=30,
    )
    return [new_envelope(event, stream_id=f"run-{run}", correlation_id=run, session_id="s")]


@pytest.mark.parametrize("recorded", [named_in_v3, copied_in_v2], ids=["v3-named", "v2-copied"])
async def test_a_jeonse_risk_step_reads_the_search_steps_listings(store, nc, infra, recorded) -> None:
    # Sale mids 110,000 / 100,000 / 85,000 -> median 100,000; 7억 / 10억 = 70% -> 위험.
    run = f"r{uuid.uuid4().hex[:8]}"
    *before, started = recorded(run, "마포구 아파트 전세 7억 위험도 분석해줘", ["jeonse_risk"])
    events = await answer_of(store, nc, infra, started, *before)
    result = StepResult.model_validate(events["StepCompleted"]["result"])
    assert result.data["jeonse_risk"]["market_value_manwon"] == 100000
    assert result.data["jeonse_risk"]["band"] == "위험"
    assert {"주택임대차보호법/제3조", "주택임대차보호법/제3조의2"} <= {c.article_id for c in result.citations}


async def test_a_step_naming_a_result_the_store_does_not_hold_fails_and_says_which(store, nc, infra) -> None:
    run = f"r{uuid.uuid4().hex[:8]}"
    lost = uuid.uuid4()
    started = step_started(run, "마포구 아파트 전세 7억 위험도 분석해줘", ["jeonse_risk"], {"search-1": lost})
    events = await answer_of(store, nc, infra, started)
    failed = events["StepFailed"]
    assert failed["error"]["code"] == "dependency_unreadable" and failed["retryable"] is False
    assert str(lost) in failed["error"]["message"]


def reading_of(query: str) -> dict:
    """The planner's reading of the question, as every StepStarted carries it (the team reads it)."""
    return extract_entities(query).model_dump(mode="json", exclude_defaults=True)
