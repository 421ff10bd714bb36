"""Loan programmes and lending rules as dated facts (infra/seed/loans/loan_programs.json), and the
tool that says which of them fit a question.

An entry holds from `effective_from` to `effective_to` inclusive; an entry past its end (특례보금자리론)
or not yet in force is never presented as current. When the question names an ended programme, the
answer says that it ended and when, instead of staying silent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import model_validator

from contracts.entities import QueryEntities
from contracts.results import Figure, StepResult
from contracts.search import Audience, LoanProduct
from contracts.values import Frozen
from services.housing import household
from services.housing.amounts import given_figures, read_amounts
from services.housing.dated_rules import check_period, has_ended, in_force
from services.housing.money import format_manwon as won_text
from services.housing.text import topic_particle
from services.housing.vocabulary import ELIGIBILITY_WORDS, JEONSE_LOAN_WORDS, PURCHASE_LOAN_WORDS
from services.platform.team import StepWork

LOAN_FILE = Path(__file__).resolve().parents[2] / "infra" / "seed" / "loans" / "loan_programs.json"
# Words of a question that name who is asking; the rules match them, no LLM needed.
AUDIENCE_WORDS: dict[Audience, tuple[str, ...]] = {
    "newlywed": ("신혼", "결혼", "예비부부"),
    "youth": ("청년", "사회초년", "20대"),
    "first_home": ("생애최초", "생애 최초", "첫 집", "첫집"),
    "newborn": ("신생아", "출산", "아기", "출생"),
    "multi_child": ("다자녀", "자녀"),
}
# The programme families people name ("디딤돌 되나요?"): a question naming one is answered for it first.
FAMILIES = ("디딤돌", "버팀목", "보금자리론")
KIND_KO = {
    "jeonse_loan": "전세자금대출",
    "purchase_loan": "구입자금대출",
    "ltv": "LTV 규제",
    "dsr": "DSR 규제",
    "stress_dsr": "스트레스 DSR",
    "dti": "DTI 규제",
}


class LoanEntry(LoanProduct):
    """A product of the data file: the published shape (contracts.search.LoanProduct) plus the checks
    the file must pass; its period is read as every dated rule's (services.housing.dated_rules)."""

    @model_validator(mode="after")
    def _consistent(self) -> LoanEntry:
        check_period(self, self.id)
        low, high = self.rate_min_pct, self.rate_max_pct
        if low is not None and high is not None and low > high:
            raise ValueError(f"{self.id}: rate range {self.rate_min_pct} > {self.rate_max_pct}")
        if self.source.date > self.effective_from and self.kind.endswith("_loan"):
            raise ValueError(f"{self.id}: a programme cannot start before it was announced")
        return self


class LendingTerm(Frozen):
    """A lending rule's name as people say it and what it means: the answer to "DSR이 뭐예요?"."""

    kind: str  # the entries' kind it names (ltv, dsr, dti, stress_dsr)
    name: str  # "LTV(담보인정비율)"
    words: str  # a regular expression of the names people use
    ratio: str  # what it divides by what, for a sentence comparing terms
    means: str  # the whole answer for this term alone


class LoanBook(Frozen):
    as_of: date
    about: str
    entries: list[LoanEntry]
    terms: list[LendingTerm] = []
    together: str = ""  # how the limits combine when several rules apply

    @model_validator(mode="after")
    def _unique_ids(self) -> LoanBook:
        ids = [e.id for e in self.entries]
        if len(ids) != len(set(ids)):
            raise ValueError("duplicate entry ids")
        return self


def load_loan_book(path: Path = LOAN_FILE) -> LoanBook:
    return LoanBook.model_validate(json.loads(path.read_text(encoding="utf-8")))


@cache
def default_book() -> LoanBook:
    """The shipped file, read once: it changes only with a release."""
    return load_loan_book()


def current_programs(today: date, book: LoanBook | None = None) -> list[LoanEntry]:
    return in_force((book or default_book()).entries, today)


def audiences_in(query: str) -> set[Audience]:
    return {a for a, words in AUDIENCE_WORDS.items() if any(w in query for w in words)}


def wanted_kinds(deal_type: str | None, query: str) -> set[str]:
    """전세 questions get 전세자금대출; 매매 questions get 구입자금대출 and the lending rules; else all."""
    jeonse = deal_type in ("jeonse", "monthly") or bool(JEONSE_LOAN_WORDS.search(query))
    purchase = deal_type == "sale" or bool(PURCHASE_LOAN_WORDS.search(query))
    kinds: set[str] = set()
    if jeonse:
        kinds.add("jeonse_loan")
    if purchase:
        kinds |= {"purchase_loan", "ltv", "dsr", "stress_dsr", "dti"}
    return kinds or set(KIND_KO)


def select_entries(entries: list[LoanEntry], kinds: set[str], audiences: set[Audience]) -> list[LoanEntry]:
    """Entries of the wanted kinds; with audience words, the programmes for that audience first, then
    the general ones (a 신혼 question still learns what every buyer may use), never other audiences'."""
    fit = [e for e in entries if e.kind in kinds]
    if not audiences:
        return fit
    targeted = [e for e in fit if audiences & set(e.audiences)]
    return targeted + [e for e in fit if e not in targeted and "general" in e.audiences]


@dataclass(frozen=True)
class Applicant:
    """What the question says of the person, in 만원: enough to rule a programme out, never in."""

    income: int | None = None
    price: int | None = None  # the home bought
    deposit: int | None = None  # the 전세 deposit borrowed for
    houses: int | None = None
    age: int | None = None

    @classmethod
    def from_query(cls, query: str, entities: QueryEntities | None = None) -> Applicant:
        """From the question and the planner's reading of the turn, which also holds the figures the
        person stated earlier ("연 7천 벌어요", then "버팀목 되나요?"); the reading's figures come first."""
        amounts = read_amounts(query)
        given = given_figures(amounts)
        price = given.sale_price or next((a.manwon for a in amounts if a.role == "price" and a.fact), None)
        read = entities or QueryEntities()
        return cls(
            read.income_manwon or given.income,
            read.sale_price_manwon or price,
            read.deposit_manwon or given.deposit,
            read.house_count if read.house_count is not None else household.houses(query)[0],
            read.age or household.age(query),
        )


def why_not(e: LoanEntry, who: Applicant) -> str | None:
    """The programme's condition the person's own figures fail, in words; None when none does (or they
    said too little to tell). A cap that depends on the region is taken at its most generous."""
    g = e.eligibility
    if who.income is not None and g.income_cap_manwon and who.income > g.income_cap_manwon:
        return f"연소득 상한 {won_text(g.income_cap_manwon)}"
    if who.age is not None and not (g.age_min or 0) <= who.age <= (g.age_max or 200):
        return f"만 {g.age_min or 0}~{g.age_max}세 요건" if g.age_max else f"만 {g.age_min}세 이상 요건"
    if who.houses is not None and g.house_count_max is not None and who.houses > g.house_count_max:
        return "무주택 요건" if g.house_count_max == 0 else f"주택 {g.house_count_max}채 이하 요건"
    for label, amount in (("주택가격 상한", who.price), ("임차보증금 상한", who.deposit)):
        caps = [lim.value for lim in e.limits if lim.label.startswith(label) and lim.unit == "만원"]
        if amount is not None and caps and amount > max(caps):
            return f"{label} {won_text(max(caps))}"
    return None


def source_text(e: LoanEntry) -> str:
    until = e.effective_to.isoformat() if e.effective_to else "현재"
    return f"{e.source.title} ({e.source.date}); 시행 {e.effective_from}~{until}"


def entry_figures(e: LoanEntry) -> list[Figure]:
    figs = [
        Figure(
            label=f"{e.name} {lim.label}" + (f" ({lim.applies_to})" if lim.applies_to else ""),
            value=lim.value,
            unit=lim.unit,
            source=source_text(e),
        )
        for lim in e.limits
    ]
    if e.rate_min_pct is not None and e.rate_max_pct is not None:
        rate = f"{e.rate_min_pct:g}~{e.rate_max_pct:g}"
        figs.append(Figure(label=f"{e.name} 금리", value=rate, unit="%", basis=e.note, source=source_text(e)))
    return figs


def entry_sentence(e: LoanEntry) -> str:
    g = e.eligibility
    terms = [
        f"연소득 {g.income_cap_manwon:,}만원 이하" if g.income_cap_manwon else None,
        f"만 {g.age_min or ''}~{g.age_max}세" if g.age_max else None,
        "무주택" if g.house_count_max == 0 else None,
        g.marriage,
        g.children,
    ]
    who = ", ".join(t for t in terms if t) or (g.other or "")
    rate = f", 금리 연 {e.rate_min_pct:g}~{e.rate_max_pct:g}%" if e.rate_min_pct is not None else ""
    return f"{e.name} ({KIND_KO[e.kind]}): {who}{rate}. 출처: {source_text(e)}."


def ended_mentions(entries: list[LoanEntry], query: str, today: date) -> list[str]:
    return [
        f"{e.name}은(는) {e.effective_to}에 종료되어 지금은 신청할 수 없습니다."
        for e in entries
        if has_ended(e, today) and e.kind.endswith("_loan") and e.name in query
    ]


# A question about what a rule is ("DSR이 뭐예요?", "LTV랑 DSR 차이", "뭐가 한도를 정해요?").
_ASKS_MEANING = re.compile(r"뭐|뭔|무엇|무슨|뜻|의미|차이|(?:이)?란\b|개념|어떻게\s*달라|설명")


def terms_answer(book: LoanBook, query: str) -> str | None:
    """What the rules the question names mean, when it asks: one term's meaning, or, for several, what
    each divides and how their limits combine."""
    named = [t for t in book.terms if re.search(t.words, query, re.IGNORECASE)]
    if not named or not _ASKS_MEANING.search(query):
        return None
    if len(named) == 1:
        return named[0].means
    compared = ", ".join(f"{t.name}{topic_particle(t.name)} {t.ratio}" for t in named)
    return f"{compared}의 비율입니다. {book.together}"


def loan_result(
    book: LoanBook, query: str, deal_type: str | None, today: date, entities: QueryEntities | None = None
) -> StepResult:
    candidates = select_entries(
        current_programs(today, book), wanted_kinds(deal_type, query), audiences_in(query)
    )
    who = Applicant.from_query(query, entities)
    ruled_out = {e.id: reason for e in candidates if (reason := why_not(e, who))}
    chosen = [e for e in candidates if e.id not in ruled_out]
    findings = [
        *ended_mentions(book.entries, query, today),
        *(entry_sentence(e) for e in chosen),
        *_ruled_out_sentence([e for e in candidates if e.id in ruled_out], ruled_out),
        f"대출 조건은 {book.as_of} 기준 공개 자료이며, 실제 한도·금리는 심사로 정해집니다.",
    ]
    programmes = [e for e in chosen if e.kind.endswith("_loan")]
    rules = [e for e in chosen if not e.kind.endswith("_loan")]
    verdict = (
        terms_answer(book, query)
        or families_compared(candidates, query)
        or rates_answer(candidates, query)
        or jeonse_limits_answer(candidates, ruled_out, who, query)
        or family_answer(candidates, ruled_out, query)
    )
    return StepResult(
        headline=verdict or f"{today} 현재 해당되는 대출 상품 {len(programmes)}개와 대출 규제 {len(rules)}건",
        verdict=verdict is not None,
        findings=findings,
        figures=[f for e in chosen for f in entry_figures(e)],
        data={"loan_products": [e.model_dump(mode="json") for e in chosen]},
    )


def families_compared(candidates: list[LoanEntry], query: str) -> str | None:
    """'디딤돌이랑 보금자리론 차이가 뭐예요?': each family's programme for everyone, side by side (who may
    borrow, the cap on the home's price, the rate), when two or more are named and their difference asked."""
    named = sorted((f for f in FAMILIES if f in query), key=query.find)
    if len(named) < 2 or not _ASKS_MEANING.search(query):
        return None
    main = [next((e for e in candidates if f in e.name and "general" in e.audiences), None) for f in named]
    if any(e is None for e in main):
        return None
    return " ".join(_side(e) for e in main if e is not None)


def _side(e: LoanEntry) -> str:
    g = e.eligibility
    who = [f"연소득 {won_text(g.income_cap_manwon)} 이하" if g.income_cap_manwon else None]
    who.append("무주택" if g.house_count_max == 0 else None)
    prices = [lim.value for lim in e.limits if lim.label.startswith("주택가격 상한") and lim.unit == "만원"]
    who.append(f"주택가격 {won_text(max(prices))} 이하" if prices else None)
    rate = f", 금리 연 {e.rate_min_pct:g}~{e.rate_max_pct:g}%" if e.rate_min_pct is not None else ""
    kind = KIND_KO[e.kind]
    said = e.name if kind in e.name else f"{e.name}({kind})"
    particle = topic_particle(kind if said.endswith(")") else said)
    return f"{said}{particle} {'·'.join(w for w in who if w)}{rate}입니다."


# A question of the price of a loan ("보금자리론 금리 얼마예요?"), not of who may have it.
_ASKS_RATE = re.compile(r"금리|이자율|이율|이자\s*(?:얼마|몇)")
_ASKS_ELIGIBILITY = re.compile(
    rf"(?<!어떻게 )(?<!어떻게)(?:되나|될까|돼요)|받을\s*수|가능|{ELIGIBILITY_WORDS}"
)


def rates_answer(candidates: list[LoanEntry], query: str) -> str | None:
    """'보금자리론 금리는 연 3.65~3.95%입니다.' for the programmes the question names by family when it
    asks their rate and not whether the person may have them."""
    if not _ASKS_RATE.search(query) or _ASKS_ELIGIBILITY.search(query):
        return None
    named = [e for e in candidates if any(f in query and f in e.name for f in FAMILIES)]
    priced = [e for e in named if e.rate_min_pct is not None and e.rate_max_pct is not None]
    unpriced = [e for e in named if e not in priced]
    said = []
    if priced:
        rates = ", ".join(f"{e.name} 연 {e.rate_min_pct:g}~{e.rate_max_pct:g}%" for e in priced)
        said.append(f"금리는 {rates}입니다(소득·만기·우대 조건에 따라 이 범위 안에서 정해집니다).")
    if unpriced:
        names = ", ".join(f"{e.name}({e.provider})" for e in unpriced)
        said.append(f"{names}의 금리는 가진 자료에 없습니다: 취급 기관이 고시하는 금리를 확인하세요.")
    return " ".join(said) or None


# How much can be borrowed ("전세 4억이면 전세대출 얼마까지 나와요?", "버팀목 한도"), not whether.
_ASKS_LIMIT = re.compile(r"한도|얼마\s*(?:까지|나|정도)|최대|빌릴\s*수|나와요|나오나|나올까")
# The snapshot and the person's places are in Seoul: a cap that differs by region is read for 수도권.
_CAPITAL_AREA = "수도권"


def jeonse_loan_limit(e: LoanEntry, deposit: int) -> str:
    """What a 전세자금대출 lends on a deposit (만원) in the capital area, said: the lowest of its cap and
    its share of the deposit ('최대 1억 6,000만원(보증금의 80%)입니다'), or that the deposit is over its
    cap."""

    def capital(label: str) -> int | None:
        found = [lim for lim in e.limits if lim.label == label and lim.unit == "만원"]
        area = [lim for lim in found if lim.applies_to and lim.applies_to.startswith(_CAPITAL_AREA)]
        return int((area or found)[0].value) if found else None

    deposit_cap, cap = capital("임차보증금 상한"), capital("대출한도")
    if deposit_cap is not None and deposit > deposit_cap:
        return f"임차보증금 상한 {won_text(deposit_cap)}을 넘어 받을 수 없습니다"
    share = next((lim.value for lim in e.limits if lim.label == "보증금 대비 한도" and lim.unit == "%"), None)
    if share is None:  # the share of the deposit is not in the data: only the cap can be said
        return (
            f"한도 {won_text(cap)}까지입니다(보증금 대비 비율은 가진 자료에 없습니다)"
            if cap
            else "한도 자료가 없습니다"
        )
    bounds = [(round(deposit * share / 100), f"보증금의 {share:g}%")]
    bounds += [(cap, f"한도 {won_text(cap)}")] if cap is not None else []
    amount, why = min(bounds)
    return f"최대 {won_text(amount)}({why})입니다"


def jeonse_limits_answer(
    candidates: list[LoanEntry], ruled_out: dict[str, str], who: Applicant, query: str
) -> str | None:
    """'전세 4억원 기준(서울·수도권): 버팀목 전세자금대출은 임차보증금 상한 3억원을 넘어 받을 수 없습니다.
    신혼부부 전용 버팀목 전세자금대출은 최대 3억원(한도 3억원)입니다. …': each 전세 programme's limit on the
    deposit told, when the question asks how much; those the person's other figures rule out are said so."""
    jeonse = [e for e in candidates if e.kind == "jeonse_loan"]
    if who.deposit is None or not jeonse or not _ASKS_LIMIT.search(query):
        return None
    said = [
        f"{e.name}{topic_particle(e.name)} {ruled_out[e.id]}에 걸립니다."
        if e.id in ruled_out and not ruled_out[e.id].startswith("임차보증금 상한")
        else f"{e.name}{topic_particle(e.name)} {jeonse_loan_limit(e, who.deposit)}."
        for e in jeonse
    ]
    return (
        f"전세 {won_text(who.deposit)} 기준(서울·수도권): {' '.join(said)} "
        "소득·자산 요건과 보증기관 심사에 따라 더 낮아질 수 있습니다."
    )


def family_answer(candidates: list[LoanEntry], ruled_out: dict[str, str], query: str) -> str | None:
    """The verdict on the programmes the question names by family ("버팀목 되나요?"), or else by whom they
    are for ("청년 전세대출 조건"): which its figures rule out and why, and which nothing said rules out
    (the lender still checks the rest)."""
    named = [e for e in candidates if any(f in query and f in e.name for f in FAMILIES)]
    if not named:
        audiences = audiences_in(query)
        named = [e for e in candidates if audiences & set(e.audiences) and e.kind.endswith("_loan")]
    if not named:
        return None
    out = [e for e in named if e.id in ruled_out]
    fit = [e for e in named if e.id not in ruled_out]
    said = []
    if out:
        reasons = ", ".join(f"{e.name}({ruled_out[e.id]})" for e in out)
        said.append(f"말씀하신 조건으로는 {reasons}을 받을 수 없습니다.")
    if fit:
        names = ", ".join(e.name for e in fit)
        said.append(
            f"{names}{topic_particle(names)} 말씀하신 내용으로 막히는 요건은 없고, 소득·자산·주택 수 등 "
            "나머지 자격은 심사에서 확인합니다."
        )
    return " ".join(said)


def _ruled_out_sentence(entries: list[LoanEntry], reasons: dict[str, str]) -> list[str]:
    if not entries:
        return []
    named = ", ".join(f"{e.name}({reasons[e.id]})" for e in entries)
    return [f"말씀하신 조건으로는 쓸 수 없는 상품: {named}."]


def _day(ctx: Any, step: StepWork) -> date:
    """The day the programmes are read for: the caller's `today()` when it has one (a test's fixed date),
    else the day the person asked, so a replay reads the programmes the run read. Only a step recorded
    before steps carried that day falls back to the machine's today."""
    clock = getattr(ctx, "today", None)
    if callable(clock):
        return clock()
    return step.inputs.said_on or date.today()


async def loan_products(ctx: Any, step: StepWork) -> StepResult:
    """The loan tool: the programmes and rules in force on the day asked that fit the question."""
    deal = step.entities.deal_type
    return loan_result(
        default_book(), step.query, deal.value if deal else None, _day(ctx, step), step.entities
    )
