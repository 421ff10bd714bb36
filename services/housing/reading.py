"""What a turn says of the person's situation and asks of it beyond names and figures: a debt ahead of
the deposit spoken of or denied, the deposit's guarantee asked about, a DSR ratio stated, a loan's limit
asked, and a lease's change (the amounts with their roles, a raise or a conversion asked, the percent a
raise asks and what it raises, the time since the last increase). The planner reads these once into the
reading (QueryEntities, by entities.py), so the team that answers reads the fields, never the words."""

from __future__ import annotations

import re

from contracts.entities import LeaseKind, StatedAmount, TimeSince
from services.housing.amounts import CONVERSION, PERCENT, Amount
from services.housing.elapsed import months_since_last
from services.housing.money import RAISE_VERBS
from services.housing.vocabulary import (
    DEPOSIT_GUARANTEE_WORDS,
    HOME_DEBT_WORDS,
    LOAN_LIMIT_ASKED,
    LOAN_RATIOS,
)

# In a question about the deposit at risk, a loan or a debt beside a second figure is the home's too.
_DEBT_WORDS = re.compile(rf"{HOME_DEBT_WORDS}|대출|빚")
_NO_DEBT = re.compile(rf"(?:{_DEBT_WORDS.pattern})\S{{0,2}}\s*(?:하나도\s*|전혀\s*)?없")
_GUARANTEE_WORDS = re.compile(DEPOSIT_GUARANTEE_WORDS, re.IGNORECASE)
_DSR_STATED = re.compile(r"DSR\s*(\d+(?:\.\d+)?)\s*%", re.IGNORECASE)

_MONTHLY_RENT_WORDS = re.compile(r"월세|월차임|차임|월\s*\d")
# The lease figure a percent or a one-year question is about, by the last such word before it.
_KIND_WORDS = re.compile(
    r"(?P<deposit>보증금|전세금|전세|전셋)|(?P<monthly_rent>월세|월차임|차임|(?<!\d)월(?=\s*\d))"
)
# A percent asked as an increase ("10% 올려달래요", "10프로 인상"), and one that names the cap the person
# asks about ("5% 넘는 거 아닌가요", "5% 이내면", "5%까지", "5% 룰"): only the first is an increase asked.
_RAISED = re.compile(
    rf"\s*(?:씩|만|나|이나|정도|쯤|가량|더|을|를|이|가|\s)*(?:{RAISE_VERBS}|올릴|올렸|달라|달래|받겠)"
)
_CAP_TALK = re.compile(
    r"\s*(?:이|가|을|를|은|는)?\s*(?:이내|이하|넘|초과|까지|상한|룰|규정|제한|한도|안(?:이|에|으로|쪽)|미만|선)"
)
_RATE_BEFORE = re.compile(rf"금리|이율|이자|전환율|수익률|세율|가율|{LOAN_RATIOS}", re.IGNORECASE)
# A search asked for beside the market: whether there are listings ("8억 이하로 있어요?", "5억 이하
# 찾아줘"), the market's level, a count ("단지가 몇 개나", "매물 수").
_LISTINGS_ASKED = re.compile(r"있(?:어요|나요|을까|는지|나|어\?|습니까)|찾아|구해|나와\s*있")
_LEVEL_ASKED = re.compile(r"시세|평균|얼마|수준|동향")
_COUNT_ASKED = re.compile(r"몇\s*(?:개|곳|군데|단지|건)|개수|(?:단지|매물)\s*수(?![가-힣])")


def debt_spoken_of(text: str) -> bool:
    """The turn speaks of a debt on the home (근저당, 선순위, 대출 …), said to be there or not."""
    return bool(_DEBT_WORDS.search(text))


def no_debt_said(text: str) -> bool:
    """The person says the home has none: '근저당 없어요', '대출 하나도 없대요'."""
    return bool(_NO_DEBT.search(text))


def guarantee_asked(text: str) -> bool:
    """The turn asks about insuring the deposit (전세보증금반환보증: HUG, SGI, 보증보험)."""
    return bool(_GUARANTEE_WORDS.search(text))


def dsr_stated(text: str) -> float | None:
    """A DSR ratio the person names, in percent ('DSR 40% 적용되면' -> 40.0); none outside (0, 100)."""
    found = _DSR_STATED.search(text)
    return float(found.group(1)) if found and 0 < float(found.group(1)) < 100 else None


def loan_limit_asked(text: str) -> bool:
    """The turn asks how much may be borrowed: 한도, 얼마까지 대출, 최대, a DSR or LTV named."""
    return bool(LOAN_LIMIT_ASKED.search(text))


def listings_asked(text: str) -> bool:
    return bool(_LISTINGS_ASKED.search(text))


def market_level_asked(text: str) -> bool:
    return bool(_LEVEL_ASKED.search(text))


def count_asked(text: str) -> bool:
    return bool(_COUNT_ASKED.search(text))


def stated_amounts(amounts: list[Amount]) -> list[StatedAmount]:
    """The amounts read (amounts.read_amounts), each with its role and change, as the reading holds them."""
    return [StatedAmount(manwon=a.manwon, role=a.role, change=a.change, base=a.base) for a in amounts]


def monthly_rent_spoken_of(text: str) -> bool:
    """The turn speaks of a monthly rent (월세, 차임, 월 50): a small amount without a role is one."""
    return bool(_MONTHLY_RENT_WORDS.search(text))


def conversion_asked(text: str) -> bool:
    """Deposit turned into monthly rent (전월세 전환): '월세로 돌리면', '8천 빼고 그만큼 월세로'."""
    return bool(CONVERSION.search(text))


def raise_asked(text: str) -> bool:
    return bool(re.search(RAISE_VERBS, text))


def raise_percent(text: str) -> tuple[float | None, LeaseKind | None]:
    """The percent a raise asks and the lease figure it raises (None when no word names one). A percent
    written next to a raise ("10% 올려달래요") or alone ("10%래요") is asked; one naming the cap ("5% 넘는
    거 아닌가요", "5% 이내면") is the person's question, and a rate ("기준금리 2.5%") no raise at all."""
    for m in PERCENT.finditer(text):
        after, before = text[m.end() :], text[max(0, m.start() - 10) : m.start()]
        if _RATE_BEFORE.search(before):
            continue
        if _RAISED.match(after) or not _CAP_TALK.match(after):
            kinds = list(_KIND_WORDS.finditer(text, 0, m.start()))
            return float(m[1]), (_kind(kinds[-1]) if kinds else None)
    return None, None


def lease_kinds_named(text: str) -> list[LeaseKind]:
    """The lease figures the text names, deposit before monthly rent."""
    named = {_kind(m) for m in _KIND_WORDS.finditer(text)}
    return [kind for kind in ("deposit", "monthly_rent") if kind in named]


def since_last(text: str) -> TimeSince | None:
    """The time since the contract or the last increase as said (elapsed.months_since_last)."""
    said = months_since_last(text)
    return TimeSince(event=said.event, months=said.months, under=said.under, text=said.text) if said else None


def _kind(m: re.Match[str]) -> LeaseKind:
    return "deposit" if m.lastgroup == "deposit" else "monthly_rent"
