"""Where the home is (지역): 수도권 or not, and whether it lies in a 규제지역 (투기과열지구·조정대상지역) on
the day asked about. LTV, the stress DSR rate, the term cap and the acquisition-tax surcharge all turn on
it, so an area the rules cannot place is asked about rather than guessed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pydantic import BaseModel, ConfigDict

from services.analysis.rules.lending import Zone
from services.housing.dated_rules import DatedRule, in_force


class RegulatedAreas(DatedRule):
    name: str
    areas: list[str]


class RegionRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    capital_area_words: list[str]
    non_capital_words: list[str]
    capital_city_words: list[str]
    regulated: list[RegulatedAreas]


@dataclass(frozen=True)
class Region:
    """`regulated` is None when the place is known only as far as a city some of whose 구 are regulated."""

    label: str
    capital: bool
    regulated: bool | None
    rule: str | None = None  # the designation that made it regulated (or not)

    @property
    def zone(self) -> Zone | None:
        """The lending rules' zone: regulated | capital (수도권 비규제) | other."""
        if self.regulated is None:
            return None
        return "regulated" if self.regulated else ("capital" if self.capital else "other")


def find_region(text: str, gu: list[str], rules: RegionRules, day: date) -> Region | None:
    """The region named by the entities' 구 (Seoul) or the question's words; None when nothing names it."""
    places = [*gu, text]
    words = " ".join(places)
    capital = bool(gu) or any(w in words for w in rules.capital_area_words + rules.capital_city_words)
    if not capital:
        named = next((w for w in rules.non_capital_words if w in words), None)
        return Region(named, False, False) if named else None
    label = (
        gu[0] if gu else next(w for w in rules.capital_area_words + rules.capital_city_words if w in words)
    )
    return Region(label, True, *_regulated(words, gu, rules, day))


def _regulated(words: str, gu: list[str], rules: RegionRules, day: date) -> tuple[bool | None, str | None]:
    seoul = bool(gu) or "서울" in words
    if not seoul and not any(w in words for w in rules.capital_city_words):
        return None, None  # "경기" alone: which city decides it
    for designation in in_force(rules.regulated, day):
        for area in designation.areas:
            tokens = area.split()
            if all(t in words for t in tokens) or (area == "서울" and seoul):
                return True, designation.name
            # "수원" alone: only some of its 구 are designated, so the answer depends on the 구.
            if len(tokens) > 1 and tokens[0] in words:
                return None, designation.name
    return False, None
