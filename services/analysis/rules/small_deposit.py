"""The small-deposit rules (소액임차인, 주택임대차보호법 시행령 제10조·제11조) as dated data from
infra/seed/rules/small_deposit.toml: the decree's region table, one per period, with the deposit that
qualifies and the amount protected in each tier, and the place words that name a tier."""

from __future__ import annotations

import re
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

# A place word followed by a money unit is a number in words ("이천만원"), not the city of 이천.
_NOT_A_PLACE_AFTER = r"(?![만천백억원])"


class PriorityTier(BaseModel):
    """One row of the decree's table: 제11조 (who qualifies) beside 제10조① (how much is protected)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str  # the decree's own words for the area
    label: str  # short, for a sentence: 과밀억제권역 등
    max_deposit_manwon: int = Field(gt=0)
    protected_manwon: int = Field(gt=0)
    places: list[str]
    note: str | None = None


class PriorityTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    effective_from: date
    articles: list[str]
    source: str = Field(min_length=4)
    house_value_share: float = Field(gt=0, le=1)
    tiers: list[PriorityTier] = Field(min_length=2)

    @property
    def seoul(self) -> PriorityTier:
        return self.tiers[0]

    def tier_named(self, text: str, gu: list[str]) -> tuple[PriorityTier, str] | None:
        """The tier and the place the question names, the longest place word deciding ("부산 기장군" is a
        군, not the 광역시); a Seoul 구 from the planner's entities when the text names no place."""
        found = [
            (len(word), tier, word)
            for tier in self.tiers
            for word in tier.places
            if re.search(re.escape(word) + _NOT_A_PLACE_AFTER, text)
        ]
        if found:
            _, tier, word = max(found, key=lambda hit: hit[0])
            return tier, word
        return (self.seoul, gu[0]) if gu else None


class SmallDepositRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tables: list[PriorityTable] = Field(min_length=1)

    def table_on(self, day: date) -> PriorityTable:
        """The table in force on `day`; before the oldest one shipped, the oldest (the answer says so)."""
        in_force = [t for t in self.tables if t.effective_from <= day]
        return max(in_force or self.tables[:1], key=lambda t: t.effective_from)
