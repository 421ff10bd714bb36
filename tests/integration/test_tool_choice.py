"""Tool choice by the LLM where a team's rules are unsure, against the fake OpenAI server."""

from __future__ import annotations

import pytest

from contracts.results import StepResult
from contracts.steps import SearchOptions, StepInputs
from services.platform.llm import LlmClient, LlmSettings
from services.platform.team import StepWork
from services.platform.tool_choice import ToolPick, pick_tools
from services.search.handlers import search_work
from services.search.legal.tool import search_text
from services.search.tools import SearchContext
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401  (fixture: fake_openai)

pytestmark = pytest.mark.integration

AVAILABLE = {"legal_search": "법령 조문 검색", "market_stats": "시세 통계"}
UNSURE = ToolPick(["legal_search"], "기본값", 0.4)
ASK = {"query": "요즘 강남 전세 어때요", "task": "강남 전세 동향", "focus": "-"}


@pytest.fixture
async def llm(fake_openai: FakeOpenAI):
    client = LlmClient(LlmSettings(OPENAI_BASE_URL=fake_openai.base_url, JIPSA_LLM_TIMEOUT_S=2))
    yield client
    await client.close()


async def choose(llm, rules=UNSURE) -> ToolPick:
    return await pick_tools(
        llm, "search_tool_selection", rules=rules, available=AVAILABLE, variables=ASK, run_id="r1"
    )


async def test_unsure_rules_ask_the_model_and_keep_only_real_tools(llm, fake_openai: FakeOpenAI) -> None:
    answer = {
        "selected_tools": ["market_stats", "crystal_ball"],
        "reasoning": "시세를 묻습니다",
        "confidence": 0.8,
    }
    fake_openai.script(Reply.json(answer), call_point="search_tool_selection")
    pick = await choose(llm)
    assert pick.names == ["market_stats"] and pick.reasoning == "시세를 묻습니다"
    assert pick.llm_call.outcome == "ok" and not pick.llm_call.fallback_used
    assert (
        "market_stats: 시세 통계"
        in fake_openai.requests_for("search_tool_selection")[0].messages[-1]["content"]
    )


@pytest.mark.parametrize(
    "reply",
    [Reply.json({"selected_tools": ["crystal_ball"], "reasoning": "?", "confidence": 1}), Reply.error(500)],
    ids=["no-known-tool", "server-error"],
)
async def test_a_useless_answer_leaves_the_rules_choice(llm, fake_openai: FakeOpenAI, reply) -> None:
    fake_openai.script(reply, reply, call_point="search_tool_selection")
    pick = await choose(llm)
    assert pick.names == ["legal_search"] and pick.llm_call.fallback_used


async def test_sure_rules_and_no_endpoint_make_no_call(llm, fake_openai: FakeOpenAI) -> None:
    sure = ToolPick(["market_stats"], "focus market", 0.9)
    assert await choose(llm, sure) == sure
    assert await choose(LlmClient(LlmSettings())) == UNSURE
    assert fake_openai.requests_for("search_tool_selection") == []


async def test_a_search_step_without_focus_records_the_models_choice(llm, fake_openai: FakeOpenAI) -> None:
    answer = {"selected_tools": ["market_stats"], "reasoning": "시세 질문", "confidence": 0.7}
    fake_openai.script(Reply.json(answer), call_point="search_tool_selection")
    terms = {
        "keywords": ["전세", "시세"],
        "legal_terms": ["전세가율"],
        "regions": ["강남"],
        "property_types": [],
    }
    fake_openai.script(Reply.json(terms), call_point="keyword_extraction")
    seen = []

    async def market(ctx, step) -> StepResult:
        seen.append(step.inputs.search.keywords)
        return StepResult(headline="강남구 전세 중앙값 10억")

    async def legal(ctx, step) -> StepResult:
        raise AssertionError("not chosen")

    work = search_work(
        SearchContext(pool=None, legal=None, llm=llm), {"legal_search": legal, "market_stats": market}
    )
    output = await work(
        StepWork("r1", "s1", "강남 전세 동향", StepInputs(query="요즘 강남 전세 어때요"), {}, 1)
    )
    (decision,) = output.tool_decisions
    assert decision.selected_tools == ["market_stats"] and decision.reasoning == "시세 질문"
    assert sorted(c.call_point for c in output.llm_calls) == ["keyword_extraction", "search_tool_selection"]
    assert seen == [["전세가율", "전세", "시세"]]  # legal concepts first, for the legal search to lead with
    assert output.result.headline == "강남구 전세 중앙값 10억"


def test_the_legal_search_leads_with_the_models_keywords() -> None:
    inputs = StepInputs(query="보증금을 못 받았어요", search=SearchOptions(keywords=["임차권등기명령"]))
    step = StepWork("r", "s", "보증금 문의", inputs, {}, 1)
    assert search_text(step) == "임차권등기명령 보증금 문의 보증금을 못 받았어요"
