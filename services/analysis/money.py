"""Korean money amounts (금액) in 만원, the unit the listings and the answer use.

"3억 5천" is 35,000 만원; "5천만원" is 5,000; "1.5억" is 15,000; "350,000,000원" is 35,000. The planner
extracts `amounts_manwon` already; this parser is the fallback when a step arrives without them.
"""

from __future__ import annotations

import re

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_AMOUNT = re.compile(
    rf"(?P<won>{_NUM})\s*원"
    rf"|(?:(?P<eok>{_NUM})\s*억)?\s*(?:(?P<cheon>{_NUM})\s*천)?\s*(?:(?P<man>{_NUM})\s*만)?"
)


def _num(text: str | None) -> float:
    return float(text.replace(",", "")) if text else 0.0


def parse_amounts_manwon(text: str) -> list[int]:
    """Every money amount in `text`, in order, in 만원. Bare numbers without a unit are not money."""
    return [value for _, _, value in find_amounts(text)]


def find_amounts(text: str) -> list[tuple[int, int, int]]:
    """Every money amount in `text` as (start, end, 만원), so a caller can read the words around it."""
    amounts: list[tuple[int, int, int]] = []
    for m in _AMOUNT.finditer(text):
        eok, cheon, man = m.group("eok"), m.group("cheon"), m.group("man")
        if m.group("won"):  # "350,000,000원"
            value = round(_num(m.group("won")) / 10_000)
        elif eok or cheon or man:
            # "3억 5천" means 5천만: a 천 after 억 without 만 is still thousands of 만원.
            value = round(_num(eok) * 10_000 + _num(cheon) * 1_000 + _num(man))
        else:
            continue
        if value > 0:
            amounts.append((m.start(), m.end(), value))
    return amounts


def won_text(manwon: float) -> str:
    """35000 -> '3억 5,000만원'; 4500 -> '4,500만원'; 3.75 -> '3만 7,500원'."""
    if manwon < 0:  # a loss: the sign in front, the amount read the usual way
        return "-" + won_text(-manwon)
    if abs(manwon) < 1:
        return f"{round(manwon * 10_000):,}원"
    whole = round(manwon)
    if abs(manwon - whole) > 0.005 and abs(manwon) < 100:
        won = round(manwon * 10_000)
        return f"{won // 10_000}만 {won % 10_000:,}원" if won % 10_000 else f"{won // 10_000}만원"
    eok, rest = divmod(whole, 10_000)
    if eok and rest:
        return f"{eok}억 {rest:,}만원"
    return f"{eok}억원" if eok else f"{rest:,}만원"
