"""What the person said earlier in the session, kept: the facts of their situation folded from the
readings of their earlier turns, so a later turn is answered with them and never asks them again.

"지금 반전세로 보증금 1억에 월세 40 내요", then "집주인이 월세를 50으로 올린대요, 돼요?": the second turn's
own reading has only the rent asked for; the fold of the first gives the rent paid now. A fact is one of
the person's own figures (their lease, income, the home's price and the debt ahead of them) or their
household (homes owned, age, years married, children), never what they searched for. Facts travel in
groups that are said together: a turn that states its lease again (only the rent, say) replaces the
whole lease, so an old deposit never sits beside a new rent. The newest turn wins, and the current turn
always wins over every earlier one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from contracts.entities import QueryEntities
from services.housing.money import bare_demands, format_manwon
from services.housing.text import object_particle

# The person's facts, in groups stated together, each with the words the answer names it by.
FACT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("deposit_manwon", "monthly_rent_manwon"),
    ("income_manwon",),
    ("sale_price_manwon", "senior_debt_manwon"),
    ("house_count",),
    ("age",),
    ("marriage_years",),
    ("children",),
)
FACT_LABELS = {
    "deposit_manwon": "보증금",
    "monthly_rent_manwon": "월세",
    "income_manwon": "연소득",
    "sale_price_manwon": "매매가",
    "senior_debt_manwon": "선순위 채권",
    "house_count": "보유 주택",
    "age": "나이",
    "marriage_years": "혼인",
    "children": "자녀",
}
# Facts that are no money, said as people say them: 무주택, 1주택, 만 29세, 혼인 2년차.
_SAID_AS = {
    "house_count": lambda n: "무주택" if n == 0 else f"{n}주택",
    "age": lambda n: f"만 {n}세",
    "marriage_years": lambda n: f"혼인 {n}년차",
    "children": lambda n: "자녀 없음" if n == 0 else f"자녀 {n}명",
}


def fact_text(name: str, value: int) -> str:
    """A fact as the answer says it: '연소득 7,000만원', '무주택', '혼인 2년차'."""
    said = _SAID_AS.get(name)
    return said(value) if said else f"{FACT_LABELS[name]} {format_manwon(value)}"


Facts = Mapping[str, int]


def facts_stated(readings: Iterable[QueryEntities]) -> dict[str, int]:
    """The facts of the earlier turns' readings, oldest first: per group, the newest turn that states it."""
    facts: dict[str, int] = {}
    for reading in readings:
        for group in FACT_GROUPS:
            if stated := _group_stated(reading, group):
                facts = {k: v for k, v in facts.items() if k not in group} | stated
    return facts


def with_earlier_facts(current: QueryEntities, earlier: Facts) -> tuple[QueryEntities, list[str]]:
    """The current turn's reading with the earlier facts it does not state itself (no group it names
    is taken from before), and the names of the fields taken."""
    taken = {
        name: value
        for group in FACT_GROUPS
        if not _group_stated(current, group)
        for name, value in earlier.items()
        if name in group
    }
    return current.model_copy(update=taken), sorted(taken)


def said_before(
    entities: QueryEntities, remembered: Sequence[str], recalled: Sequence[str] = ()
) -> str | None:
    """The sentence that says which figures of an answer come from earlier turns ('앞서 말씀하신 보증금
    1억원, 월세 40만원 기준입니다.'), those `recalled` from an earlier conversation (memory.py) said so:
    '지난번에 말씀하신 연소득 3,800만원 기준입니다.'"""
    earlier = _figures(entities, [n for n in remembered if n in recalled])
    now = _figures(entities, [n for n in remembered if n not in recalled])
    parts = [f"지난번에 말씀하신 {earlier}"] * bool(earlier) + [f"앞서 말씀하신 {now}"] * bool(now)
    return f"{', '.join(parts)} 기준입니다." if parts else None


def demanded_of(text: str, earlier: QueryEntities) -> dict[str, int]:
    """A figure the landlord demands with no word of which ('80으로 올려달래요' after '보증금 1000에
    70 내요'), read against the lease stated before: the new deposit or rent it is nearer to by ratio (80
    is a rent beside 70, never a deposit beside 1,000); a raise by it ('10 더 올려달래요') raises the
    rent when it is smaller than the rent, else the deposit."""
    lease = {
        asked: now
        for asked, now in (
            ("requested_deposit_manwon", earlier.deposit_manwon),
            ("requested_monthly_rent_manwon", earlier.monthly_rent_manwon),
        )
        if now
    }
    if not lease:
        return {}
    for value, new_figure in bare_demands(text):
        if new_figure:
            field = min(lease, key=lambda f: max(value, lease[f]) / min(value, lease[f]))
            return {field: value}
        rent = lease.get("requested_monthly_rent_manwon")
        field = "requested_monthly_rent_manwon" if rent and value < rent else "requested_deposit_manwon"
        if field in lease:
            return {field: lease[field] + value}
    return {}


# The money facts a bare figure can set, and the lease group's other member kept beside the one corrected.
_MONEY_FACTS = ("deposit_manwon", "monthly_rent_manwon", "income_manwon", "sale_price_manwon")


def corrected_by(reading: QueryEntities, earlier: QueryEntities) -> dict[str, int]:
    """A turn that only tells one bare amount ("아 아니다 2억 2천이에요", "2억 2천이요") after money facts
    were stated corrects the one it is nearest to by ratio (2억 2천 is the deposit beside 2억, never a rent of
    40), the rest of its group kept as stated. Nothing when the turn names what the amount is, or when
    no money fact was stated before."""
    if len(reading.amounts_manwon) != 1 or any(_group_stated(reading, g) for g in FACT_GROUPS):
        return {}
    stated = {name: value for name in _MONEY_FACTS if (value := getattr(earlier, name)) is not None}
    if not stated:
        return {}
    value = reading.amounts_manwon[0]
    field = min(stated, key=lambda f: max(value, stated[f]) / max(1, min(value, stated[f])))
    group = next(g for g in FACT_GROUPS if field in g)
    return {name: getattr(earlier, name) for name in group if getattr(earlier, name) is not None} | {
        field: value
    }


def noted(entities: QueryEntities) -> str | None:
    """The sentence for facts stated with nothing asked ('연봉 4천이에요'): the next question is answered
    with them, so say so."""
    figures = _figures(entities, list(FACT_LABELS))
    return (
        f"말씀하신 {figures}{object_particle(figures)} 기억해 두고 다음 질문에 쓰겠습니다."
        if figures
        else None
    )


def _figures(entities: QueryEntities, names: Sequence[str]) -> str:
    return ", ".join(
        fact_text(name, value)
        for name in FACT_LABELS
        if name in names and (value := getattr(entities, name)) is not None
    )


def _group_stated(reading: QueryEntities, group: tuple[str, ...]) -> dict[str, int]:
    return {name: value for name in group if (value := getattr(reading, name)) is not None}
