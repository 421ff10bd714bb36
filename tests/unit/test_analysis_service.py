"""Tool selection, concurrent tools with isolated failures, and the decision record, without servers."""

from __future__ import annotations

import json

import pytest

from contracts.steps import StepInputs
from services.analysis.bootstrap import load_library
from services.analysis.handlers import analyse
from services.analysis.tools import ANALYSIS_TEAM, BY_NAME, TOOLS, _by_name
from services.housing.entities import extract_entities
from services.platform.team import StepFailure, StepWork
from services.platform.team_of_tools import BY_FOCUS, BY_WORDS, choose_by_rules

pytestmark = pytest.mark.unit
LIBRARY = load_library()


def step(query: str, focus: list[str] | None = None, **inputs) -> StepWork:
    """A step as the planner sends it: the question with its reading."""
    reading = extract_entities(query).model_dump(mode="json", exclude_defaults=True)
    inputs = StepInputs.model_validate({"query": query, "focus": focus or [], "entities": reading, **inputs})
    return StepWork("run-1", "a1", "분석", inputs, {}, 1)


def test_each_tool_is_registered_once_with_what_it_runs() -> None:
    """One registry: the team chooses from the tools the handler runs, each under one name."""
    names = [tool.name for tool in TOOLS]
    assert ANALYSIS_TEAM.tools == TOOLS and list(BY_NAME) == names
    assert all(callable(tool.run) for tool in TOOLS)
    with pytest.raises(ValueError, match="share a name"):
        _by_name((TOOLS[0], TOOLS[0]))


def test_focus_decides_before_keywords() -> None:
    chosen = choose_by_rules(ANALYSIS_TEAM, step("깡통전세 위험한가요", ["rent_increase"]))
    assert chosen.names == ["rent_increase"] and chosen.confidence == BY_FOCUS


def test_keywords_pick_tools_when_there_is_no_focus() -> None:
    chosen = choose_by_rules(ANALYSIS_TEAM, step("전세금 5% 인상인데 깡통전세 위험도 궁금해요"))
    assert chosen.names == ["rent_increase", "jeonse_risk"]
    assert chosen.confidence == BY_WORDS


@pytest.mark.parametrize(
    ("query", "focus", "tool"),
    [
        ("보증금 1억이면 얼마나 보호받아요?", "priority_repayment", "priority_repayment"),
        ("서울 보증금 1억 최우선변제 되나요?", None, "priority_repayment"),
        ("소액임차인 기준이 얼마예요?", None, "priority_repayment"),
        ("보증금 500 월세 40 얼마 내요?", "brokerage_fee", "brokerage_fee"),
        ("보증금 500에 월세 40이면 복비 얼마?", None, "brokerage_fee"),
        ("월세 중개수수료 계산해 주세요", None, "brokerage_fee"),
    ],
)
def test_the_law_figures_are_reached_by_their_focus_or_their_words(query, focus, tool) -> None:
    chosen = choose_by_rules(ANALYSIS_TEAM, step(query, [focus] if focus else []))
    assert chosen.names == [tool]


async def test_a_priority_repayment_step_answers_with_the_amount_protected() -> None:
    entities = {"gu": ["관악구"], "deposit_manwon": 10000}
    output = await analyse(
        step("관악구 보증금 1억 최우선변제", ["priority_repayment"], entities=entities), LIBRARY
    )
    assert output.result.headline.startswith("관악구에서 보증금 1억원은 소액임차인")
    assert "5,500만원까지" in output.result.headline


async def test_a_rent_increase_step_records_its_decision() -> None:
    out = await analyse(step("전세금 3억인데 3억 5천으로 올려달래요", ["rent_increase"]), LIBRARY)
    (decision,) = out.tool_decisions
    assert decision.selected_tools == ["rent_increase"]
    assert json.loads(decision.outcome)["rent_increase"]["ok"] is True
    assert decision.step_id == "a1" and "16.7%" in out.summary


async def test_a_failing_tool_is_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(case, statutes):
        raise ValueError("bad listing row")

    monkeypatch.setattr("services.analysis.tools.market_analysis", lambda case, rate: broken(case, None))
    out = await analyse(step("전세 3억 5천으로 올려달래요", ["rent_increase", "market_analysis"]), LIBRARY)
    assert set(out.result.failed_tools) == {"market_analysis"}
    assert "bad listing row" in out.result.failed_tools["market_analysis"]
    outcome = json.loads(out.tool_decisions[0].outcome)
    assert outcome["market_analysis"]["ok"] is False and outcome["rent_increase"]["ok"] is True
    assert any("계산하지 못한 항목" in f for f in out.result.findings)


async def test_when_every_tool_fails_the_step_fails_retryably(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(case, rules, statutes):
        raise RuntimeError("rules missing")

    monkeypatch.setattr("services.analysis.tools.rent_increase", broken)
    with pytest.raises(StepFailure) as failure:
        await analyse(step("3억에서 3억 5천", ["rent_increase"]), LIBRARY)
    assert failure.value.retryable and failure.value.code == "all_tools_failed"


async def test_nothing_to_analyse_asks_what_to_analyse() -> None:
    out = await analyse(step("안녕하세요"), LIBRARY)
    assert out.result.questions and out.tool_decisions[0].selected_tools == []
