"""What a turn says of the person's situation and asks of it beyond names and figures: a debt ahead of
the deposit spoken of or denied, the deposit's guarantee asked about, a DSR ratio stated, a loan's limit
asked. The planner reads these once into the reading (QueryEntities, by entities.py), so the team that
answers reads the fields and never the words again."""

from __future__ import annotations

import re

_DEBT_WORDS = re.compile(r"근저당|선순위|채권최고액|대출|융자|빚")
_NO_DEBT = re.compile(r"(?:근저당|선순위|대출|융자|빚)\S{0,2}\s*(?:하나도\s*|전혀\s*)?없")
_GUARANTEE_WORDS = re.compile(r"반환\s*보증|보증\s*보험|HUG|SGI|HF|보증\s*가입", re.IGNORECASE)
_DSR_STATED = re.compile(r"DSR\s*(\d+(?:\.\d+)?)\s*%", re.IGNORECASE)
_LIMIT_WORDS = re.compile(r"한도|DSR|LTV|얼마(?:나|까지)?\s*(?:빌|대출|받)|대출\s*가능|최대", re.IGNORECASE)


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
    return bool(_LIMIT_WORDS.search(text))
