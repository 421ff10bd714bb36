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
from services.platform.team import StepWork
from services.search.legal import LegalIndex
from services.search.legal.tool import legal_search
from services.search.listings import listing_search
from services.search.loans import loan_products
from services.search.market import market_stats


@dataclass(frozen=True)
class SearchContext:
    """What tools get from the service: its read-model pool and the legal index built at start."""

    pool: AsyncConnectionPool | None
    legal: LegalIndex | None


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


@dataclass(frozen=True)
class ToolChoice:
    selected: list[str]
    reasoning: str
    confidence: float


def choose_tools(step: StepWork, available: Mapping[str, Tool]) -> ToolChoice:
    """Focus decides when the planner gave one; otherwise keywords of the query and task do."""
    by_focus = [FOCUS_TOOLS[f] for f in _focuses(step) if FOCUS_TOOLS.get(f) in available]
    if by_focus:
        selected = list(dict.fromkeys(by_focus))
        return ToolChoice(selected, f"step focus {', '.join(step.focus)} -> {', '.join(selected)}", 0.9)
    text = f"{step.query} {step.task}"
    by_words = [name for name, words in KEYWORD_TOOLS.items() if name in available and words.search(text)]
    if by_words:
        return ToolChoice(by_words, f"keywords in the query and task -> {', '.join(by_words)}", 0.7)
    fallback = [name for name in ("legal_search",) if name in available] or list(available)[:1]
    return ToolChoice(
        fallback, "no focus and no telling keyword: statutes are the search team's default", 0.4
    )


def _focuses(step: StepWork) -> list[StepFocus]:
    return [StepFocus(f) for f in step.focus if f in StepFocus._value2member_map_]
