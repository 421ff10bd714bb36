"""The person's household as they say it (무주택, 1주택, 신혼 3년차, 자녀 둘, 기존 대출 없음): one reading for
every service that asks (the loan simulator's profile, the loan application's facts). Each reader answers
None where the words say nothing, never a guess."""

from __future__ import annotations

import re

_HOUSES = re.compile(r"(\d)\s*주택|집\s*(\d)\s*채|(\d)\s*채")
_ANOTHER_HOME = re.compile(r"(?:하나|한\s*채|한\s*개|집)\s*더|추가\s*(?:로\s*)?(?:구입|매수|사)|또\s*사")
_SELLING = re.compile(r"처분|팔(?:고|아|면|기)|매도|갈아타")
_NO_INCOME = re.compile(r"무소득|(?:소득|수입|연봉)\s*(?:이|은|는)?\s*(?:없|0\s*원)")
_NO_DEBT = re.compile(
    r"(?:기존\s*대출|다른\s*대출|부채|빚)\s*(?:이|은|는)?\s*(?:없|0\s*원)|대출\s*(?:이|은)?\s*없"
)
# "결혼 3년차", "혼인 2년", "결혼한 지 2년 됐고", "결혼하고 3년"
_MARRIAGE_YEAR = re.compile(r"(?:결혼|혼인)(?:\s*(?:한\s*지|하고|한\s*후|후))?\s*(\d{1,2})\s*년\s*(?:차|째)?")
_CHILDREN = re.compile(r"(?:자녀|아이|애)\s*(\d)\s*명|(\d)\s*자녀")
# "만 29살", "29세", "서른 둘" is not read; "50 살다가" is living on, not an age (money.py says the same).
# "만 34세 이하", "19세 이상": a rule's bound on ages, not the person's own.
_AGE = re.compile(
    r"(?:만\s*)?(\d{1,2})\s*(?:살|세)(?![다고아았면며던지기려])(?!\s*(?:이하|이상|미만|초과|까지|부터))"
)


# Homes counted in native numerals ("집 두 채", "세 채째"), which Sino-Korean reading (numerals.py) leaves.
_NATIVE_COUNT = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5}
_HOMES_IN_WORDS = re.compile(r"(?<![가-힣])(한|두|세|네|다섯)\s*채(째)?")
_NTH_HOME = re.compile(r"(\d)\s*채\s*째")


def houses(text: str) -> tuple[int | None, bool]:
    """(how many homes the household has now, whether this purchase is its first home: 생애최초). The
    N-th home bought ("두 채째 사면") leaves N - 1 owned now."""
    if re.search(r"생애\s*최초|첫\s*집", text):
        return 0, True
    if words := _HOMES_IN_WORDS.search(text):
        said = _NATIVE_COUNT[words[1]]
        return (said - 1 if words[2] else said), False
    if nth := _NTH_HOME.search(text):
        return int(nth[1]) - 1, False
    if re.search(r"무주택|집\s*(?:이|은)?\s*없", text):
        return 0, False
    if "다주택" in text:
        return 2, False
    count = first_int(_HOUSES, text)
    if count is None and re.search(r"집\s*한\s*채|1주택|일주택", text):
        count = 1
    return count, False


def adds_a_home(text: str) -> bool:
    """Buying one more and keeping what it has ("한 채 있는데 하나 더 사려고"), not moving house."""
    return bool(_ANOTHER_HOME.search(text)) and not _SELLING.search(text)


def says_no_income(text: str) -> bool:
    return bool(_NO_INCOME.search(text))


def says_no_debt(text: str) -> bool:
    return bool(_NO_DEBT.search(text))


def marriage(text: str) -> tuple[bool | None, int | None, bool]:
    """(married, years since the wedding, engaged): "결혼 3년차" is in its third year, so at most 3."""
    if re.search(r"결혼\s*예정|예비\s*(?:신혼|부부)|결혼\s*(?:할|을\s*앞)", text):
        return None, None, True
    years = first_int(_MARRIAGE_YEAR, text)
    if years is not None or re.search(r"신혼|기혼|부부|배우자|남편|아내|결혼했", text):
        return True, years, False
    if re.search(r"미혼|싱글|혼자\s*(?:살|사)|1인\s*가구", text):
        return False, None, False
    return None, None, False


def children(text: str) -> tuple[int | None, bool]:
    """(how many children, whether one was born in the last two years: 신생아 특례)."""
    newborn = bool(re.search(r"신생아|출산|아기|갓난", text))
    if re.search(r"자녀\s*(?:는|가)?\s*없|아이\s*(?:는|가)?\s*없|무자녀", text):
        return 0, False
    count = first_int(_CHILDREN, text)
    return (count if count is not None else (1 if newborn else None)), newborn


def age(text: str) -> int | None:
    """The person's age in years, as said ("만 29살", "29세")."""
    return first_int(_AGE, text)


def first_int(rx: re.Pattern[str], text: str) -> int | None:
    """The first group that matched of the first match, as a number."""
    m = rx.search(text)
    return int(next(g for g in m.groups() if g)) if m else None
