"""Tool selection rules, concurrent tools and failure isolation, with fake tools (no servers)."""

import asyncio
import json

import pytest

from contracts.results import StepResult
from contracts.steps import plan_inputs
from services.housing.entities import extract_entities
from services.platform.team import StepFailure, StepWork
from services.search.handlers import search_work
from services.search.tools import SearchContext, answering_first, choose_tools, default_tools

pytestmark = pytest.mark.unit
CTX = SearchContext(pool=None, legal=None)


def step(query: str, focus: list[str] | None = None, task: str = "검색") -> StepWork:
    # as the supervisor reads a plan's step: the question with the planner's reading of it
    reading = extract_entities(query).model_dump(mode="json", exclude_defaults=True)
    inputs = plan_inputs({"query": query, "focus": focus or [], "entities": reading})
    return StepWork("run-1", "s1", task, inputs, {}, attempt=1)


def fake(name: str, delay: float = 0.0):
    async def tool(ctx, work):
        await asyncio.sleep(delay)
        return StepResult(headline=f"{name} found", findings=[f"{name} finding"], data={name: [1]})

    return tool


async def broken(ctx, work):
    raise ConnectionError("listing database unreachable")


ALL = {n: fake(n) for n in ("legal_search", "listing_search", "market_stats", "loan_products")}


@pytest.mark.parametrize(
    ("focus", "query", "expected"),
    [
        (["legal"], "전세금 5% 인상 제한", ["legal_search"]),
        (["listings", "market"], "강남구 아파트", ["listing_search", "market_stats"]),
        (["loan_products"], "버팀목 대출", ["loan_products"]),
        ([], "주택임대차보호법 제7조", ["legal_search"]),
        ([], "강남구 아파트 전세 시세", ["listing_search", "market_stats"]),
        ([], "디딤돌 대출 금리", ["loan_products"]),
        ([], "안녕하세요", ["legal_search"]),
        (["unknown-focus"], "중개보수 한도", ["legal_search"]),
    ],
)
def test_choose_tools(focus: list[str], query: str, expected: list[str]) -> None:
    assert choose_tools(step(query, focus), ALL).names == expected


def test_focus_on_a_tool_that_is_not_registered_falls_back_to_keywords() -> None:
    choice = choose_tools(step("강남구 아파트 시세", ["market"]), {"legal_search": fake("legal_search")})
    assert choice.names == ["legal_search"]


async def test_tools_run_concurrently_and_the_decision_is_recorded() -> None:
    tools = {"listing_search": fake("listing_search", 0.3), "market_stats": fake("market_stats", 0.3)}
    began = asyncio.get_running_loop().time()
    out = await search_work(CTX, tools)(step("아파트", ["listings", "market"]))
    assert asyncio.get_running_loop().time() - began < 0.55
    (decision,) = out.tool_decisions
    assert decision.selected_tools == ["listing_search", "market_stats"]
    assert decision.available_tools == ["listing_search", "market_stats"]
    assert all(t["ok"] for t in json.loads(decision.outcome).values())
    assert out.result.headline == "listing_search found" and "market_stats found" in out.result.findings
    assert set(out.result.data) == {"listing_search", "market_stats"}


async def test_a_failing_tool_leaves_the_others_standing() -> None:
    tools = {"listing_search": broken, "market_stats": fake("market_stats")}
    out = await search_work(CTX, tools)(step("아파트", ["listings", "market"]))
    assert list(out.result.failed_tools) == ["listing_search"]
    assert "unreachable" in out.result.failed_tools["listing_search"]
    assert out.result.headline == "market_stats found"
    outcome = json.loads(out.tool_decisions[0].outcome)
    assert outcome["listing_search"]["ok"] is False and outcome["market_stats"]["ok"] is True


async def test_all_tools_failing_fails_the_step_as_retryable() -> None:
    with pytest.raises(StepFailure) as failure:
        await search_work(CTX, {"legal_search": broken})(step("제7조", ["legal"]))
    assert failure.value.retryable and failure.value.code == "all_tools_failed"


@pytest.mark.parametrize(
    ("query", "lead"),
    [
        ("서초구에 아파트 단지가 몇 개나 돼요?", "listing_search"),
        ("송파구 전세 매물 수 알려줘", "listing_search"),
        ("서초구 아파트 시세 알려줘", "market_stats"),  # a price question: the statistics answer
    ],
)
def test_a_count_asked_is_answered_by_the_listing_total(query: str, lead: str) -> None:
    chosen = choose_tools(step(query, ["market", "listings"]), default_tools()).names
    assert chosen == ["market_stats", "listing_search"]
    assert answering_first(step(query), chosen)[0] == lead


@pytest.mark.parametrize(
    ("query", "lead"),
    [
        ("강남역 근처 오피스텔 월세 100 이하", "listing_search"),  # bounds stated: the listings within them
        ("서초구 아파트 매매 20억 이하로 있어요?", "listing_search"),
        ("강남역 오피스텔 월세 100 이하면 시세가 어때요?", "market_stats"),  # the market's level asked
    ],
)
def test_listings_within_the_bounds_stated_lead_unless_the_market_level_is_asked(
    query: str, lead: str
) -> None:
    assert answering_first(step(query), ["market_stats", "listing_search"])[0] == lead


def test_a_superlative_asked_leads_with_the_listing_that_is_it() -> None:
    chosen = ["market_stats", "listing_search"]
    assert answering_first(step("송파구 원룸 월세 제일 싼 곳"), chosen)[0] == "listing_search"


def test_both_ends_asked_are_the_markets_range() -> None:
    both = step("대치동 아파트 매매 제일 싼 거랑 제일 비싼 거 호가가 얼마예요?")
    assert answering_first(both, ["market_stats", "listing_search"])[0] == "market_stats"


def test_two_places_compared_are_answered_by_the_comparison_not_a_listing() -> None:
    """'강남구랑 서초구 오피스텔 매매 어디가 더 싸요?' asks which district, not the cheapest listing."""
    compared = step("강남구랑 서초구 오피스텔 매매 어디가 더 싸요?")
    assert answering_first(compared, ["market_stats", "listing_search"])[0] == "market_stats"
