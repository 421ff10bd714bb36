"""The sale contract's rule book (infra/seed/rules/sale_contract.toml): 특약 that protect the buyer, 특약
against the buyer, and the duties the 부동산 거래신고 등에 관한 법률 lays on both parties. Data, not code: a
rule is changed in the file, with the article it rests on."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Literal

from services.platform.settings import REPO_ROOT

RULES = REPO_ROOT / "infra" / "seed" / "rules" / "sale_contract.toml"

Severity = Literal["warning", "note"]


@dataclass(frozen=True)
class ProtectiveTerm:
    """A 특약 that protects the buyer, suggested unless the contract already says it (`covered`)."""

    code: str
    title: str
    when: Literal["always", "land_permit"]
    severity: Severity
    covered: re.Pattern[str]
    term: str
    reason: str
    article_id: str | None = None


@dataclass(frozen=True)
class AgainstBuyer:
    """A 특약 that works against the buyer or the law, and what to write instead."""

    code: str
    title: str
    severity: Severity
    pattern: re.Pattern[str]
    reason: str
    suggestion: str
    article_id: str | None = None


@dataclass(frozen=True)
class Duty:
    """What the law makes the parties do after signing, with the paragraphs that say it."""

    code: str
    title: str
    article_id: str
    paragraphs: tuple[int, ...]
    text: str
    days_after_contract: int | None = None

    def due(self, contract_date: date | None) -> date | None:
        """The last day, counted from the day after signing (민법 제157조: the first day is not counted)."""
        if contract_date is None or self.days_after_contract is None:
            return None
        return contract_date + timedelta(days=self.days_after_contract)


@dataclass(frozen=True)
class SaleRules:
    protective: tuple[ProtectiveTerm, ...]
    against_buyer: tuple[AgainstBuyer, ...]
    duties: tuple[Duty, ...]

    @property
    def article_ids(self) -> tuple[str, ...]:
        rows: tuple[ProtectiveTerm | AgainstBuyer | Duty, ...] = (
            *self.protective,
            *self.against_buyer,
            *self.duties,
        )
        return tuple(dict.fromkeys(r.article_id for r in rows if r.article_id))

    @property
    def paragraphs(self) -> dict[str, tuple[int, ...]]:
        return {d.article_id: d.paragraphs for d in self.duties}


@cache
def sale_rules(path: Path = RULES) -> SaleRules:
    with path.open("rb") as source:
        book = tomllib.load(source)
    return SaleRules(
        protective=tuple(
            ProtectiveTerm(**{**_renamed(row), "covered": re.compile(row["covered"])})
            for row in book["protective"]
        ),
        against_buyer=tuple(
            AgainstBuyer(**{**_renamed(row), "pattern": re.compile(row["pattern"])})
            for row in book["against_buyer"]
        ),
        duties=tuple(
            Duty(**{**_renamed(row), "paragraphs": tuple(row["paragraphs"])}) for row in book["duty"]
        ),
    )


def _renamed(row: dict) -> dict:
    """The file says `article`; the rules call it `article_id`, as every corpus reference here does."""
    return {("article_id" if key == "article" else key): value for key, value in row.items()}
