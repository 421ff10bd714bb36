"""The search team's tools and how a step chooses among them (the seed's call points #4 keyword
extraction and #5 search tool selection, here as rules: no LLM is needed to pick a tool).

A tool is `async (ctx, step) -> StepResult`. TOOLS is the one place tools are registered.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from psycopg_pool import AsyncConnectionPool

from contracts.results import StepResult
from contracts.values import StepFocus
from services.platform.llm import LlmClient
from services.platform.team import StepWork
from services.platform.tool_choice import ToolPick
from services.search.legal import LegalIndex
from services.search.legal.tool import legal_search
from services.search.listings import listing_search
from services.search.loans import loan_products
from services.search.market import market_stats


@dataclass(frozen=True)
class SearchContext:
    """What tools get from the service: its read-model pool, the legal index built at start, and the
    LLM client (for tool choice where the rules are unsure)."""

    pool: AsyncConnectionPool | None
    legal: LegalIndex | None
    llm: LlmClient | None = None


Tool = Callable[[SearchContext, StepWork], Awaitable[StepResult]]


def default_tools() -> dict[str, Tool]:
    """Every tool of the search team, by name: the one place a tool is registered."""
    return {
        "legal_search": legal_search,
        "listing_search": listing_search,
        "market_stats": market_stats,
        "loan_products": loan_products,
    }


# Which tool serves each focus the planner may set (contracts.values.StepFocus).
FOCUS_TOOLS = {
    StepFocus.LEGAL: "legal_search",
    StepFocus.RENT_INCREASE: "legal_search",
    StepFocus.LEASE_CONTRACT: "legal_search",
    StepFocus.LISTINGS: "listing_search",
    StepFocus.MARKET: "market_stats",
    StepFocus.MARKET_ANALYSIS: "market_stats",
    StepFocus.JEONSE_RISK: "market_stats",
    StepFocus.LOAN_PRODUCTS: "loan_products",
    StepFocus.LOAN_SIMULATION: "loan_products",
}

# When no focus is given, words in the query and task pick the tools (the seed's keyword rules).
KEYWORD_TOOLS = {
    "legal_search": re.compile(
        r"법|조항|제\s*\d+\s*조|시행령|시행규칙|규칙|계약갱신|갱신|대항력|우선변제|보증금\s*반환|임차권|"
        r"중개|등기|신고|의무|권리|벌칙|과태료|요건|자격|인상\s*(?:한도|제한|상한)|5\s*%"
    ),
    "listing_search": re.compile(r"매물|단지|아파트|오피스텔|원룸|투룸|빌라|역\s*근처|추천|찾아"),
    "market_stats": re.compile(r"시세|평균|중앙값|가격|얼마|비교|동향|실거래"),
    "loan_products": re.compile(r"대출|LTV|DSR|DTI|버팀목|디딤돌|보금자리|금리", re.IGNORECASE),
}


# What the model reads of each tool when it chooses (search_tool_selection).
TOOL_DESCRIPTIONS = {
    "legal_search": "부동산 관련 법령(주택임대차보호법, 공인중개사법 등) 조문 검색",
    "listing_search": "서울 강남·서초·송파 아파트·오피스텔 단지와 원룸 매물 검색",
    "market_stats": "지역·유형·거래유형별 시세(최저·중앙값·최고, 평당가) 통계",
    "loan_products": "전세자금·주택담보 대출 상품과 LTV·DSR 규제 한도",
}


# A question that counts ("단지가 몇 개나", "매물 수") is answered by the listing tool's total.
_COUNT_ASKED = re.compile(r"몇\s*(?:개|곳|군데|단지|건)|개수|(?:단지|매물)\s*수(?![가-힣])")


def answering_first(step: StepWork, names: list[str]) -> list[str]:
    """The tools in the order their headlines should lead the step's answer: as chosen, except that a
    count asked for puts the listing total first."""
    if "listing_search" in names and _COUNT_ASKED.search(f"{step.query} {step.task}"):
        return ["listing_search", *(n for n in names if n != "listing_search")]
    return names


def choose_tools(step: StepWork, available: Mapping[str, Tool]) -> ToolPick:
    """Focus decides when the planner gave one; otherwise keywords of the query and task do."""
    by_focus = [FOCUS_TOOLS[f] for f in _focuses(step) if FOCUS_TOOLS.get(f) in available]
    if by_focus:
        selected = list(dict.fromkeys(by_focus))
        return ToolPick(selected, f"step focus {', '.join(step.focus)} -> {', '.join(selected)}", 0.9)
    text = f"{step.query} {step.task}"
    by_words = [name for name, words in KEYWORD_TOOLS.items() if name in available and words.search(text)]
    if by_words:
        return ToolPick(by_words, f"keywords in the query and task -> {', '.join(by_words)}", 0.7)
    fallback = [name for name in ("legal_search",) if name in available] or list(available)[:1]
    return ToolPick(fallback, "no focus and no telling keyword: statutes are the search team's default", 0.4)


def _focuses(step: StepWork) -> list[StepFocus]:
    return [StepFocus(f) for f in step.focus if f in StepFocus._value2member_map_]
