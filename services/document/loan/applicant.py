"""The applicant's facts a loan application needs (대출 신청인 정보), collected the contracts' way
(common/fields.py `gather`): from earlier turns, the query and the answers to our questions.
Money roles are read by the housing package ("연봉 6천", "기존 대출 월 50만원", "9억짜리 아파트"), as the
loan simulator reads them; nothing is guessed.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.document.common.fields import gather
from services.housing import household
from services.housing.amounts import read_amounts
from services.housing.entities import extract_entities
from services.housing.vocabulary import JEONSE_LOAN_WORDS, PURCHASE_LOAN_WORDS
from services.platform.settings import REPO_ROOT

MANWON = 10_000
DOCUMENTS_FILE = REPO_ROOT / "infra" / "seed" / "rules" / "loan_documents.toml"
Purpose = Literal["purchase", "jeonse"]

_PLACE = re.compile(
    r"(?:서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충북|충남|전북|전남|경북|경남|제주)[가-힣]*"
    r"(?:\s+[가-힣]+(?:시|군|구))*"
)
_ROLES = {
    "income": "income_won",
    "monthly_income": "income_won",
    "price": "price_won",
    "sale_price": "price_won",
    "deposit": "deposit_won",
    "debt_payment": "existing_debt_monthly_won",
}


class LoanApplicant(BaseModel):
    """What the application states about the person and the home. Money in won."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    purpose: Purpose | None = None  # 주택 구입 또는 전세
    price_won: int | None = Field(default=None, gt=0)  # 사려는 주택 가격
    deposit_won: int | None = Field(default=None, gt=0)  # 전세보증금
    income_won: int | None = Field(default=None, ge=0)  # 연소득 (부부합산)
    existing_debt_monthly_won: int | None = Field(default=None, ge=0)  # 기존 대출 월 상환액
    house_count: int | None = Field(default=None, ge=0)  # 세대가 가진 주택 수
    region: str | None = None  # 주택 소재지
    married: bool = False

    @field_validator("purpose", mode="before")
    @classmethod
    def _purpose(cls, value: Any) -> Any:
        """'전세' or '매매·구입' as the person answers it."""
        if isinstance(value, str) and value not in ("purchase", "jeonse"):
            jeonse, purchase = JEONSE_LOAN_WORDS.search(value), PURCHASE_LOAN_WORDS.search(value)
            return "jeonse" if jeonse else "purchase" if purchase else value
        return value

    @field_validator("house_count", mode="before")
    @classmethod
    def _house_count(cls, value: Any) -> Any:
        """'무주택', '1주택', '집 2채' or a bare number."""
        if not isinstance(value, str):
            return value
        count, _ = household.houses(value)
        bare = re.fullmatch(r"\s*(\d)\s*(?:채|개)?\s*", value)
        return count if count is not None else int(bare[1]) if bare else value


LABELS = {
    "purpose": ("대출 목적", "주택 구입 또는 전세"),
    "price_won": ("사려는 주택 가격", "예: 8억"),
    "deposit_won": ("전세보증금", "예: 3억"),
    "income_won": ("연소득 (부부합산이면 합산액)", "예: 연봉 6천만원"),
    "existing_debt_monthly_won": (
        "기존 대출의 월 상환액 (없으면 0)",
        "신용대출·자동차 할부 등 모든 대출의 월 원리금",
    ),
    "house_count": ("세대가 가진 주택 수", "무주택, 1주택 …"),
    "region": ("주택 소재지 (시·구)", "예: 서울 마포구"),
}


def collect_applicant(
    query: str, previous_queries: Iterable[str] = (), answers: Mapping[str, Any] | None = None
) -> tuple[LoanApplicant, dict[str, str]]:
    return gather(LoanApplicant, applicant_from_text, [*previous_queries, query], answers or {})


def applicant_from_text(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if JEONSE_LOAN_WORDS.search(text) or PURCHASE_LOAN_WORDS.search(text):
        found["purpose"] = text
    for amount in read_amounts(text):
        if (name := _ROLES.get(amount.role)) and name not in found:
            found[name] = amount.manwon * MANWON * (12 if amount.role == "monthly_income" else 1)
    if household.says_no_debt(text):
        found["existing_debt_monthly_won"] = 0
    if household.houses(text)[0] is not None:
        found["house_count"] = text
    if region := _region(text):
        found["region"] = region
    if household.marriage(text)[0]:
        found["married"] = True
    return found


def _region(text: str) -> str | None:
    """Where the home is: a Seoul 구 as the planner reads it, else a province or city named."""
    if gu := extract_entities(text).gu:
        return f"서울 {gu[0]}"
    named = _PLACE.search(text)
    return named.group().strip() if named else None


def missing_applicant_fields(applicant: LoanApplicant) -> list[str]:
    """What the lender's figures need: the purpose, the home's price (or the deposit), income, debts,
    houses and where the home is."""
    amount = "deposit_won" if applicant.purpose == "jeonse" else "price_won"
    needed = ("purpose", amount, "income_won", "existing_debt_monthly_won", "house_count", "region")
    return [name for name in needed if getattr(applicant, name) is None]


def simulator_facts(applicant: LoanApplicant) -> dict[str, Any]:
    """The applicant in the loan simulator's terms (만원, the 구 of a Seoul address), for the analysis
    steps that read this step's result."""
    facts: dict[str, Any] = {
        "income_manwon": _manwon(applicant.income_won),
        "existing_debt_monthly_manwon": _manwon(applicant.existing_debt_monthly_won),
        "house_count": applicant.house_count,
    }
    if applicant.purpose == "purchase":
        facts["price_manwon"] = _manwon(applicant.price_won)
    else:
        facts["deposit_manwon"] = _manwon(applicant.deposit_won)
    if applicant.region and (gu := extract_entities(applicant.region).gu):
        facts["gu"] = gu
    return {k: v for k, v in facts.items() if v is not None}


def _manwon(won: int | None) -> float | None:
    return won / MANWON if won is not None else None


@dataclass(frozen=True)
class LenderDocument:
    name: str
    purpose: Literal["purchase", "jeonse", "both"]
    when: Literal["always", "married", "has_debt"]
    where: str


@cache
def lender_documents(path: Path = DOCUMENTS_FILE) -> tuple[LenderDocument, ...]:
    with path.open("rb") as source:
        return tuple(LenderDocument(**row) for row in tomllib.load(source)["document"])


def documents_for(applicant: LoanApplicant) -> list[LenderDocument]:
    """The papers a lender asks of this applicant: for the purpose, and those their facts call for."""
    facts = {
        "always": True,
        "married": applicant.married,
        "has_debt": bool(applicant.existing_debt_monthly_won),
    }
    return [d for d in lender_documents() if d.purpose in ("both", applicant.purpose) and facts[d.when]]
