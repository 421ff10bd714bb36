"""The search team's tools and its policy, as data for the team-of-tools loop
(services/platform/team_of_tools.py): which focus each tool serves, the words that call for it, what
the model reads of it when it chooses, and how the tools' results make one answer.

TOOLS declares what chooses each tool; `default_tools` says how each runs (`async (ctx, step) ->
StepResult`), so a test can run fakes under the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from psycopg_pool import AsyncConnectionPool

from contracts.results import StepResult
from contracts.values import StepFocus, Team
from services.housing.vocabulary import (
    HOME_KIND_WORDS,
    LOAN_NAMED_WORDS,
    MARKET_PRICE_WORDS,
    RULE_ASK_WORDS,
    TENANT_RIGHTS_WORDS,
)
from services.platform.llm import LlmClient
from services.platform.team import StepOutput, StepWork
from services.platform.team_of_tools import Tool, ToolTeam, choose_by_rules
from services.platform.tool_choice import ToolPick
from services.search.legal import LegalIndex
from services.search.legal.tool import legal_search
from services.search.listings import ComplexNames, listing_search
from services.search.loans import loan_products
from services.search.market import market_stats


@dataclass(frozen=True)
class SearchContext:
    """What tools get from the service: its read-model pool, the legal index built at start, the LLM
    client (for tool choice where the rules are unsure) and the complexes' names."""

    pool: AsyncConnectionPool
    legal: LegalIndex | None
    llm: LlmClient | None = None
    complexes: ComplexNames = field(default_factory=ComplexNames, compare=False)


SearchTool = Callable[[SearchContext, StepWork], Awaitable[StepResult]]


def default_tools() -> dict[str, SearchTool]:
    """How every tool of the search team runs, by name."""
    return {
        "legal_search": legal_search,
        "listing_search": listing_search,
        "market_stats": market_stats,
        "loan_products": loan_products,
    }


TOOLS = (
    Tool(
        "legal_search",
        "부동산 관련 법령(주택임대차보호법, 공인중개사법 등) 조문 검색",
        (StepFocus.LEGAL, StepFocus.RENT_INCREASE, StepFocus.LEASE_CONTRACT),
        re.compile(
            rf"법|조항|제\s*\d+\s*조|시행령|시행규칙|규칙|{TENANT_RIGHTS_WORDS}|보증금\s*반환|임차권|중개|등기"
            rf"|{RULE_ASK_WORDS}|인상\s*(?:한도|제한|상한)|5\s*%"
        ),
    ),
    Tool(
        "listing_search",
        "서울 강남·서초·송파 아파트·오피스텔 단지와 원룸 매물 검색",
        (StepFocus.LISTINGS,),
        re.compile(rf"매물|단지|{HOME_KIND_WORDS}|역\s*근처|추천|찾아", re.IGNORECASE),
    ),
    Tool(
        "market_stats",
        "지역·유형·거래유형별 시세(최저·중앙값·최고, 평당가) 통계",
        (StepFocus.MARKET, StepFocus.MARKET_ANALYSIS, StepFocus.JEONSE_RISK),
        re.compile(rf"{MARKET_PRICE_WORDS}|평균|중앙값|가격|얼마|비교"),
    ),
    Tool(
        "loan_products",
        "전세자금·주택담보 대출 상품과 LTV·DSR 규제 한도",
        (StepFocus.LOAN_PRODUCTS, StepFocus.LOAN_SIMULATION),
        re.compile(rf"{LOAN_NAMED_WORDS}|금리", re.IGNORECASE),
    ),
)


_BOUND_KEYS = ("price_max_manwon", "price_min_manwon", "monthly_rent_max_manwon", "monthly_rent_min_manwon")


def answering_first(step: StepWork, names: list[str]) -> list[str]:
    """The tools in the order their headlines should lead the step's answer: as chosen, except that a
    count asked for, or listings asked for within a price bound, puts the listing total first. Bounds with
    no question of the market's level ("강남역 오피스텔 월세 100 이하") ask for those listings too."""
    asked = step.entities
    bounded = any(getattr(asked, key) is not None for key in _BOUND_KEYS)
    asks_listings = bounded and (asked.listings_asked or not asked.market_level_asked)
    # "송파구 원룸 월세 제일 싼 곳": a superlative asks for the listing that is it; "제일 싼 거랑 제일 비싼
    # 거" asks both ends, which the market's range gives, and "강남구랑 서초구 어디가 더 싸요?" which place
    places = asked.gu + asked.dong
    asks_listings = asks_listings or (len(asked.rankings_asked) == 1 and len(places) < 2)
    if "listing_search" in names and (asked.count_asked or asks_listings):
        return ["listing_search", *(n for n in names if n != "listing_search")]
    return names


def merge(step: StepWork, results: dict[str, StepResult], failed: dict[str, str]) -> StepResult:
    """Results of several tools as one: the leading tool's headline leads (answering_first), lists are
    concatenated, each tool's typed data stays under its own keys."""
    leading = [results[n] for n in answering_first(step, list(results))]
    headline = next((r.headline for r in leading if r.headline), None)
    findings = dict.fromkeys(f for r in leading for f in _findings(r, lead=r is leading[0]))
    return StepResult(
        headline=headline,
        findings=[f for f in findings if f != headline],  # two tools may say the same first
        figures=[f for r in leading for f in r.figures],
        citations=[c for r in leading for c in r.citations],
        listings=[row for r in leading for row in r.listings],
        documents=[d for r in leading for d in r.documents],
        questions=[q for r in leading for q in r.questions],
        failed_tools={n: failed[n] for n in answering_first(step, list(failed))},
        data={k: v for r in leading for k, v in r.data.items()},
    )


def _findings(result: StepResult, lead: bool) -> list[str]:
    """A tool whose headline does not lead the merged result keeps it as its first finding."""
    return ([result.headline] if result.headline and not lead else []) + result.findings


SEARCH_TEAM = ToolTeam(
    team=Team.SEARCH,
    tools=TOOLS,
    call_point="search_tool_selection",
    lead_by_focus=True,  # the planner lists a step's focuses in the order the question asks them
    words_of=lambda step: f"{step.query} {step.task}",
    merge=merge,
    done="검색 완료",
    nothing_chosen=StepOutput(
        "검색할 항목 없음", StepResult(headline="이 질문에서 찾아볼 항목을 정하지 못했습니다.")
    ),
    default=("legal_search",),  # no focus and no telling word: statutes are the search team's default
)


def choose_tools(step: StepWork, available: Mapping[str, SearchTool]) -> ToolPick:
    """The search rules' choice among the tools available."""
    return choose_by_rules(SEARCH_TEAM.only(list(available)), step)
