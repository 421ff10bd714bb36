"""What a team's StepCompleted carries in `result`: one typed shape every team fills, so the
supervisor can compose an answer (and the page can show what backs it) without knowing the tools.

Small enough to travel in an event: ids plus the text actually shown, never whole documents.
Team-specific typed payloads (legal hits with scores, market statistics, a loan schedule) go in
`data` under a key named after the tool that made them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from contracts.values import Citation, DocumentRef, Frozen


class Figure(Frozen):
    """A number the answer may quote, with where it came from and how it was computed."""

    label: str = Field(description="what it is, in Korean: '강남구 아파트 전세 중앙값'")
    value: float | int | str
    unit: str | None = Field(default=None, description="만원, %, 평, ㎡, 건 ...")
    basis: str | None = Field(default=None, description="inputs and formula, or the sample it summarises")
    source: str | None = Field(default=None, description="dataset and date, e.g. '매물 스냅샷 2025-10-08'")


class ListingRow(Frozen):
    """One complex or one-room listing as a person compares them."""

    listing_id: str
    kind: str = Field(description="complex | one_room")
    name: str
    property_type: str
    gu: str
    dong: str
    deal_type: str | None = None
    area_min_m2: float | None = None
    area_max_m2: float | None = None
    price_min_manwon: int | None = None
    price_max_manwon: int | None = None
    monthly_rent_min_manwon: int | None = None
    monthly_rent_max_manwon: int | None = None
    station: str | None = None
    walk_min: int | None = None
    completion_ym: str | None = None
    households: int | None = None


class Question(Frozen):
    """Something the step needs from the person before it can finish (a missing contract field)."""

    field: str
    label: str
    hint: str | None = None


class StepResult(Frozen):
    headline: str | None = Field(default=None, description="the step's finding in one sentence")
    findings: list[str] = Field(default=[], description="further points, each one sentence")
    figures: list[Figure] = []
    citations: list[Citation] = []
    listings: list[ListingRow] = []
    documents: list[DocumentRef] = []
    questions: list[Question] = []
    needs_input: bool = Field(
        default=False,
        description="the step cannot finish without answers to `questions`: the run waits for them "
        "(a contract's missing fields). Otherwise the questions only say what would sharpen the answer.",
    )
    failed_tools: dict[str, str] = Field(default={}, description="tool -> why it failed; the rest stood")
    verdict: bool = Field(
        default=False,
        description="the headline answers what the person asked in so many words (whether the programme "
        "they named is open to them, what the term they asked about means): it leads the answer",
    )
    data: dict[str, Any] = {}
