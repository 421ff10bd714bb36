"""Rent and deposit increases under 주택임대차보호법 (차임·보증금 증액): the 5% cap (제7조, 시행령 제8조),
the one-year rule, 계약갱신요구권 (제6조의3), 묵시적 갱신 (제6조), the 2-year term (제4조) and the
전월세 전환율 (제7조의2, 시행령 제9조)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from contracts.entities import LeaseKind, StatedAmount
from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.rules.lease import LeaseRules
from services.analysis.rules.statutes import StatuteBook
from services.housing.elapsed import Elapsed, months_text
from services.housing.money import format_manwon as won_text
from services.housing.text import final_consonant

_KIND_NAMES: dict[LeaseKind, str] = {"deposit": "보증금", "monthly_rent": "월차임"}
_ONE_YEAR_SOURCE = "주택임대차보호법 제7조① 후단, 시행령 제8조②"
_CONVERSION_SOURCE = "주택임대차보호법 제7조의2, 시행령 제9조"


@dataclass(frozen=True)
class Increase:
    """One increase asked for (증액 요구): from `current` to `asked`, in 만원."""

    what: str  # 보증금 | 월차임
    current: float
    asked: float | None


# What is now and what is asked, per kind: a run's answers (named as the input form names them), then
# the amounts by role the person gave (QueryEntities).
_KEYS = {
    "보증금": (
        ("current_deposit_manwon", "deposit_manwon"),
        ("asked_deposit_manwon", "requested_deposit_manwon"),
    ),
    "월차임": (
        ("current_monthly_rent_manwon", "monthly_rent_manwon"),
        ("asked_monthly_rent_manwon", "requested_monthly_rent_manwon"),
    ),
}
_ROLE_KEYS = [key for now, asked in _KEYS.values() for key in (now[1], asked[1])]


def increases(case: Case) -> list[Increase]:
    """Each kind (보증금, 월차임) the person gave a current figure for, with the figure asked for it."""
    # The amounts by role the person gave come first: the step's inputs, then the reading (QueryEntities:
    # deposit_manwon, requested_deposit_manwon …); the order of the amounts is the fallback for a question
    # without role words ("3억에서 3억 1천으로").
    by_role = any(case.number(key) for key in _ROLE_KEYS)
    unbased = _unbased_changes(case.entities.amounts)
    deposits, rents = (_without(values, unbased) for values in case.deposits_and_rents())
    found = []
    for what, values in (("보증금", deposits), ("월차임", rents)):
        fallback = [] if by_role else values
        now_keys, asked_keys = _KEYS[what]
        current = case.number(*now_keys) or (fallback[0] if fallback else None)
        asked = case.number(*asked_keys) or (fallback[1] if len(fallback) > 1 else None)
        if current and asked is not None and asked < current:
            asked = None  # a lowered deposit is a 전월세 전환 (converted_deposit), not an increase
        if current:
            found.append(Increase(what, float(current), float(asked) if asked is not None else None))
    percent, kind = case.entities.raise_percent, case.entities.raise_percent_of
    if percent is not None and not any(inc.asked is not None for inc in found):
        # "전세 5억인데 10% 올려달래요": the percent raises the kind named before it, else every kind given
        targets = [inc for inc in found if kind and inc.what == _KIND_NAMES[kind]] or found
        found = [
            Increase(inc.what, inc.current, inc.current * (1 + percent / 100)) if inc in targets else inc
            for inc in found
        ]
    return found


def _unbased_changes(read: list[StatedAmount]) -> list[float]:
    """Amounts that change a lease figure the person did not say ("보증금에서 8천 빼고", "보증금 4천 올려",
    "전세 3억 5천으로 올려달래요"): they are no current deposit or rent."""
    return [float(a.manwon) for a in read if a.change and a.base is None]


def _without(values: list[float], taken: list[float]) -> list[float]:
    left = list(values)
    for value in taken:
        if value in left:
            left.remove(value)
    return left


def increase_figures(inc: Increase, rules: LeaseRules) -> tuple[list[Figure], list[str]]:
    cap = rules.increase_cap.max_ratio
    source = rules.increase_cap.source
    legal_max = inc.current * (1 + cap)
    figures = [
        Figure(
            label=f"법정 상한 {inc.what} (5% 인상)",
            value=round(legal_max, 2),
            unit="만원",
            basis=f"{_n(inc.current)}만원 × (1 + {cap:.0%}) = {won_text(legal_max)}",
            source=source,
        ),
        Figure(
            label=f"최대 증액분 ({inc.what})",
            value=round(inc.current * cap, 2),
            unit="만원",
            basis=f"{_n(inc.current)}만원 × {cap:.0%} = {won_text(inc.current * cap)}",
            source=source,
        ),
    ]
    asked = inc.asked
    if asked is None:
        return figures, [
            f"현재 {inc.what} {won_text(inc.current)}에서 올릴 수 있는 최대는 {won_text(legal_max)}입니다."
        ]
    ratio, raise_by = (asked - inc.current) / inc.current, asked - inc.current
    figures[:0] = [
        Figure(
            label=f"요구 인상률 ({inc.what})",
            value=round(ratio * 100, 2),
            unit="%",
            basis=f"({_n(asked)} − {_n(inc.current)}) ÷ {_n(inc.current)} × 100",
        ),
        Figure(
            label=f"요구 인상액 ({inc.what})",
            value=round(raise_by, 2),
            unit="만원",
            basis=f"{_n(asked)} − {_n(inc.current)} = {won_text(raise_by)}",
        ),
    ]
    if ratio <= cap + 1e-9:
        return figures, [
            f"요구한 {won_text(raise_by)} 인상({ratio:.1%})은 법정 상한 {cap:.0%} 이내라 요구할 수 있으며, "
            f"요구한 {inc.what} {won_text(asked)}은 상한 {won_text(legal_max)} 안입니다."
        ]
    excess = asked - legal_max
    figures.append(
        Figure(
            label=f"상한 초과분 ({inc.what})",
            value=round(excess, 2),
            unit="만원",
            basis=f"{_n(asked)} − {_n(legal_max)} = {won_text(excess)}",
        )
    )
    # The verdict names what was asked as a total beside the most that may be: "요구한 5억 5,000만원이
    # 아니라 최대 5억 2,500만원".
    return figures, [
        f"{won_text(raise_by)} 인상({ratio:.1%})은 법정 상한 {cap:.0%}를 넘어 요구할 수 없고, {inc.what}은 "
        f"요구한 {won_text(asked)}이 아니라 최대 {won_text(legal_max)}"
        f"({won_text(legal_max - inc.current)} 인상)까지입니다.",
        f"상한을 넘는 {won_text(excess)}은 거절할 수 있습니다(제7조②, 시행령 제8조①).",
    ]


def converted_deposit(case: Case) -> float | None:
    """The part of the deposit a question turns into monthly rent (전월세 전환), in 만원: what is taken out
    of it ("보증금에서 8천 빼고 그만큼 월세로"), the difference of a lowered deposit ("3억에서 2억으로 낮추고
    나머지를 월세로"), else the deposit named ("보증금 1억을 월세로 돌리면")."""
    converted = case.number("convert_deposit_manwon")
    if converted is None and case.entities.conversion_asked:
        current, lowered = case.number("deposit_manwon"), case.number("requested_deposit_manwon")
        taken_out = [a for a in case.entities.amounts if a.role == "deposit" and a.change == "cut"]
        deposits, _ = case.deposits_and_rents()
        if current and lowered is not None and lowered < current:
            converted = current - lowered
        elif taken_out:
            converted = taken_out[0].manwon
        elif len(deposits) > 1:
            converted = abs(deposits[-1] - deposits[0])
        else:
            converted = deposits[0] if deposits else None
    return converted if converted and converted > 0 else None


def conversion_figures(case: Case, rules: LeaseRules) -> list[Figure]:
    """전월세 전환율 상한, and the monthly rent for a deposit converted to rent when one is asked about."""
    rate, base = rules.conversion_rate, rules.base_rate
    figures = [
        Figure(
            label="전월세 전환율 상한",
            value=round(rate * 100, 2),
            unit="%",
            basis=f"min(연 {rules.conversion.statutory_cap_rate:.0%}, 기준금리 {base.rate:.2%} + "
            f"{rules.conversion.base_rate_spread:.0%}p)",
            source=f"기준금리 {base.effective_date} 기준, {base.source}",
        )
    ]
    converted = converted_deposit(case)
    if converted:
        monthly = converted * rate / 12
        figures.append(
            Figure(
                label="전환 시 월차임 상한",
                value=round(monthly, 2),
                unit="만원",
                basis=f"{_n(converted)}만원 × {rate:.2%} ÷ 12 = 월 {won_text(monthly)}",
                source=_CONVERSION_SOURCE,
            )
        )
    return figures


def since_last_increase(case: Case) -> Elapsed | None:
    """The time since the contract or the last increase: from the dates the step was given
    (last_increase_date or contract_start_date, to the day the rules are read for), else as the person
    said it ("재계약한 지 6개월", "1년 반 전에 올렸")."""
    last = case.text("last_increase_date") or case.text("contract_start_date")
    if not last:
        said = case.entities.since_last
        return Elapsed(said.event, said.months, said.under, said.text) if said else None
    since = _months_between(date.fromisoformat(last), case.day())
    return Elapsed("increase" if case.text("last_increase_date") else "contract", float(since), False, last)


def one_year_finding(case: Case, rules: LeaseRules) -> str:
    months = rules.increase_cap.min_months_between_increases
    since = since_last_increase(case)
    if since is None:
        return f"증액청구는 계약 또는 직전 증액 후 {months // 12}년이 지나야 할 수 있습니다."
    verdict = (
        "지났으므로 증액청구가 가능합니다"
        if since.at_least(months)
        else "지나지 않아 증액청구를 할 수 없습니다"
    )
    dated = case.text("last_increase_date") or case.text("contract_start_date")
    told = f"직전 계약·증액일({dated})부터 {since.words}" if dated else f"{since.name} 후 {since.words}"
    return f"{told}: {months}개월이 {verdict}({_ONE_YEAR_SOURCE})."


def one_year_headline(since: Elapsed, kinds: str, rules: LeaseRules) -> str:
    """The answer when the time since the contract or the last increase is known: within a year no
    increase may be asked at all, even one within 5% (제7조① 후단, 시행령 제8조②)."""
    months = rules.increase_cap.min_months_between_increases
    span = f"{since.name} 후 {since.words}"
    if since.at_least(months):
        return (
            f"{span}{_ro(span)} 1년이 지났으므로 증액을 청구할 수는 있지만, 약정한 {kinds}의 "
            f"{rules.increase_cap.max_ratio:.0%}를 넘을 수 없습니다."
        )
    cap = rules.increase_cap.max_ratio
    return (
        f"{span}{_ro(span)} 아직 {months_text(months)}이 지나지 않았으므로 집주인은 {kinds} 증액을 청구할 수 "
        f"없고, {cap:.0%} 이내라도 거절할 수 있습니다({_ONE_YEAR_SOURCE})."
    )


def asks_conversion_only(case: Case, found: list[Increase]) -> bool:
    """ "월세로 돌리면 얼마", "전환 시 이자율 제한": a conversion asked, with no increase named or asked
    ("월세로 10만원 올려달래요" raises the rent)."""
    raises = case.entities.raise_asked or any(inc.asked is not None for inc in found)
    return case.entities.conversion_asked and not raises


def converted_headline(case: Case, converted: float, rate: float) -> str:
    """The most rent a converted deposit may bring, and with the rent paid now, the rent it comes to
    ('보증금 1억에 월세 50 … 5천 빼면 월세 얼마까지?': 50만원 + 187,500원)."""
    added = converted * rate / 12
    said = (
        f"보증금 {won_text(converted)}을 월세로 전환하면 법정 전환율 상한 {rate:.1%} 기준 "
        f"월 {won_text(added)}까지 받을 수 있습니다({_CONVERSION_SOURCE})"
    )
    now = case.number("monthly_rent_manwon")
    if not now:
        return f"{said}."
    return f"{said}: 지금 월세 {won_text(now)}과 합하면 월 {won_text(now + added)}까지입니다."


def conversion_answer(case: Case, rules: LeaseRules, statutes: StatuteBook) -> StepResult:
    """A question about turning deposit into monthly rent (전월세 전환) and not about an increase: the
    most rent the converted deposit may bring at today's rate, or the rule with that rate when no amount
    was given; the increase cap and the renewal rules are another question's answer."""
    rate, base, conversion = rules.conversion_rate, rules.base_rate, rules.conversion
    converted = converted_deposit(case)
    per_100m = 10_000 * rate / 12
    if converted:
        headline = converted_headline(case, converted, rate)
    else:
        headline = (
            f"보증금을 월세로 돌릴 때 전환율 상한은 지금 연 {rate:.1%}입니다: 월세는 돌리는 보증금 × "
            f"{rate:.1%} ÷ 12를 넘을 수 없어, 보증금 1억원이면 월 {won_text(per_100m)}까지입니다"
            f"({_CONVERSION_SOURCE})."
        )
    findings = [
        f"{rate:.1%}는 연 {conversion.statutory_cap_rate:.0%}(시행령 제9조①)와 기준금리 {base.rate:.2%}에 "
        f"{conversion.base_rate_spread:.0%}p(시행령 제9조②)를 더한 비율 중 낮은 쪽입니다"
        f"(기준금리 {base.effective_date} 기준; 기준금리가 바뀌면 상한도 바뀝니다).",
        "이 상한은 계약기간 중이나 갱신하면서 보증금의 전부나 일부를 월세로 돌릴 때 적용되고, 기간이 끝난 뒤 "
        "합의로 새로 맺는 계약에는 적용되지 않습니다.",
    ]
    return StepResult(
        headline=headline,
        findings=findings,
        figures=conversion_figures(case, rules),
        citations=[
            statutes.cite("주택임대차보호법/제7조의2", ()),
            statutes.cite("주택임대차보호법_시행령/제9조", ()),
        ],
        questions=[] if converted else [Question(field="convert_deposit_manwon", label="월세로 돌릴 보증금")],
        data={
            "rent_increase": {"increases": [], "conversion_rate": rate, "converted_deposit_manwon": converted}
        },
    )


def rent_increase(case: Case, rules: LeaseRules, statutes: StatuteBook) -> StepResult:
    found = increases(case)
    if asks_conversion_only(case, found):
        return conversion_answer(case, rules, statutes)
    figures: list[Figure] = []
    findings: list[str] = []
    asked: list[str] = []  # the verdict on each increase asked for, the first being the headline
    unchanged: list[str] = []
    any_asked = any(inc.asked is not None for inc in found)
    for inc in found:
        if any_asked and inc.asked is None:  # "월세 10만원 올린대요": the deposit beside it stays as it is
            unchanged.append(f"{inc.what} {won_text(inc.current)}은 인상 요구가 없어 그대로입니다.")
            continue
        more_figures, more_findings = increase_figures(inc, rules)
        figures += more_figures
        findings += more_findings
        asked += more_findings[:1] if inc.asked is not None else []
    findings += unchanged + _unbased_findings(case, rules, found)
    figures += conversion_figures(case, rules)
    term = rules.term
    findings += [
        one_year_finding(case, rules),
        "5% 상한은 계약기간 중 증액청구와 계약갱신요구권으로 갱신할 때 적용되며, 기간 만료 후 합의로 새로 "
        "맺는 계약에는 적용되지 않습니다. 시·도 조례로 상한을 더 낮출 수 있습니다.",
        f"계약갱신요구권: 만료 {term.notice_window_months[0]}~{term.notice_window_months[1]}개월 전에 "
        f"{term.renewal_right_uses}회 쓸 수 있고 갱신 기간은 "
        f"{term.renewed_term_months // 12}년입니다. 임대인은 "
        "2기 차임 연체, 무단 전대, 고의·중과실 파손, "
        "임대인(직계존비속 포함)의 실거주 등 법정 사유가 있을 때만 "
        "거절할 수 있습니다.",
        "묵시적 갱신: 임대인이 만료 6~2개월 전에 갱신거절·조건변경 "
        "통지를 하지 않으면 같은 조건으로 2년 갱신되고, "
        "임차인은 언제든 해지 통지할 수 있으며 "
        f"{term.implied_renewal_termination_notice_months}개월 뒤 효력이 생깁니다.",
        f"임대차 기간은 최소 {term.minimum_months // 12}년이 "
        "보장되며(2년 미만 약정도 2년), 임차인은 더 짧은 기간을 "
        "주장할 수 있습니다. 이에 어긋나 임차인에게 불리한 약정은 무효입니다.",
    ]
    converted = converted_deposit(case)
    since = since_last_increase(case)
    barred = since is not None and not since.at_least(rules.increase_cap.min_months_between_increases)
    if converted and not asked:  # "보증금 1억을 월세로 돌리면 얼마?": the conversion is the answer
        rate = rules.conversion_rate
        headline = converted_headline(case, converted, rate)
    elif barred and since is not None:  # within a year no increase may be asked, whatever its size
        headline = one_year_headline(since, _kinds(case, found), rules)
    elif asked:
        headline = asked[0]
    elif since is not None:  # a year has passed, and no figure to check: the rule and the cap
        headline = one_year_headline(since, _kinds(case, found), rules)
    else:
        headline = findings[0] if found else "현재 보증금·차임을 알려 주시면 인상 한도를 계산해 드립니다."
    needs_figures = not found and not barred and not converted
    questions = (
        [Question(field="current_deposit_manwon", label="현재 보증금(또는 월차임)")] if needs_figures else []
    )
    return StepResult(
        headline=headline,
        findings=[f for f in findings if f != headline],
        figures=figures,
        citations=_citations(statutes),
        questions=questions,
        data={
            "rent_increase": {
                "increases": [inc.__dict__ for inc in found],
                "conversion_rate": rules.conversion_rate,
                "months_since_last_increase": since.months if since else None,
            }
        },
    )


def _unbased_findings(case: Case, rules: LeaseRules, found: list[Increase]) -> list[str]:
    """An increase by an amount on a figure the person did not give ("보증금 4천 올려달래요"): the
    current figure it would need to stay within the cap."""
    cap = rules.increase_cap.max_ratio
    given = {inc.what for inc in found}
    findings = []
    for a in case.entities.amounts:
        what = {"deposit": "보증금", "monthly_rent": "월차임"}.get(a.role)
        if a.base is not None or not what or what in given:
            continue
        if a.change == "by":  # "보증금 4천 올려달래요": 4,000 ÷ 5% = 8억 at least
            findings.append(
                f"{won_text(a.manwon)} 인상이 상한 {cap:.0%} 이내이려면 현재 {what}이 "
                f"{won_text(a.manwon / cap)} 이상이어야 합니다({a.manwon:,} ÷ {cap:.0%})."
            )
        elif a.change == "to":  # "전세 3억 5천으로 올려달래요": 35,000 ÷ 1.05 = 33,333.3 at least
            findings.append(
                f"{won_text(a.manwon)}{_ro(won_text(a.manwon))} 올리는 것이 상한 {cap:.0%} 이내이려면 현재 "
                f"{what}이 {won_text(math.ceil(a.manwon / (1 + cap)))} 이상이어야 합니다"
                f"({a.manwon:,} ÷ {1 + cap:g})."
            )
    return findings


def _kinds(case: Case, found: list[Increase]) -> str:
    """What the increase is of, in words: the kinds asked about, else the kinds the question names."""
    kinds = [inc.what for inc in found if inc.asked is not None] or [
        _KIND_NAMES[kind] for kind in case.entities.lease_kinds_named
    ]
    return "·".join(kinds) if kinds else "차임·보증금"


def _ro(words: str) -> str:
    """로 after a vowel or ㄹ, else 으로: "6개월로", "1년으로", "1년 미만으로"."""
    return "로" if final_consonant(words) in (None, 0, 8) else "으로"


def _citations(statutes: StatuteBook) -> list:
    wanted = [
        ("주택임대차보호법/제7조", (1, 2)),
        ("주택임대차보호법_시행령/제8조", ()),
        ("주택임대차보호법/제6조의3", (1, 2, 3)),
        ("주택임대차보호법/제6조", (1, 2)),
        ("주택임대차보호법/제6조의2", ()),
        ("주택임대차보호법/제4조", (1,)),
        ("주택임대차보호법/제7조의2", ()),
        ("주택임대차보호법_시행령/제9조", ()),
        ("주택임대차보호법/제10조", ()),
    ]
    return [statutes.cite(article_id, paragraphs) for article_id, paragraphs in wanted]


def _n(value: float) -> str:
    """31500.0 -> '31,500'; 52.5 -> '52.5'."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _months_between(start: date, end: date) -> int:
    return (end.year - start.year) * 12 + end.month - start.month - (end.day < start.day)
