"""Amounts and the roles people give them (보증금, 월세, 매매가, 대출, 근저당, 소득, 기존 부채, 보유세, 자산),
and changes asked.

An amount's role comes from the words around it, in this order:
1. a change of an amount just read takes that amount's role: "전세금 3억을 3억 5천으로", "3억인데 3억
   5천으로 올려달래요" (the new figure), "전세 3억인데 4천 올려달래요" (an increase by), "월세 50을 60으로";
   a change after a lease role word, or with nothing before it, changes a figure not said (its base is
   None, and it is no figure given): "보증금에서 8천 빼고" (a cut), "보증금 4천 올려달래요";
2. "1000/50" after 보증금/월세 is the deposit and the monthly rent, and so is "보증금 1000에 70" (a bare
   amount joined to a deposit by 에, small enough to be a rent);
3. the last role word before it in the same clause, since the previous amount: "매매 4억 아파트에 전세
   3억6천" (매매가, 보증금), "근저당 2억 잡힌 집" (선순위 채권); a bare 월 after another role word says
   per month ("관리비 월 10만원" is a fee, "기존 대출 월 50만원" a monthly repayment of a debt), and a role
   said to be absent is none ("기존 대출 없음 8억 아파트": a price);
4. a word right after it when none comes before: "5억짜리 아파트" (매매가), "3억 대출" (대출), "2억 낀
   집" (선순위 채권: debt on the house, even after the word 대출), and "월 50만원 갚고" (a debt repaid);
5. otherwise it is a price with no role of its own ("10억 이하 아파트").

A figure the person gave (`fact`) is an amount said as it is; an amount with a bound ("1000 이하", "3억대",
"5억~8억") asks for a range and fills the price and monthly-rent bounds instead. "3억 정도" is both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from contracts.entities import AmountChange as Change
from contracts.entities import AmountRole as Role
from services.housing.money import (
    CHANGE_LINK,
    CHANGE_TO,
    CUT_BY,
    DEMANDED,
    RAISE_BY,
    TO_RAISED,
    WITH_DEPOSIT,
    Money,
    could_be_rent_of,
    find_money,
    format_manwon,
)
from services.housing.text import normalize, number

# Role words; where two start at the same place the earlier listed wins (전세자금대출 is a loan, 재산세
# a holding cost).
_ROLE_WORDS: tuple[tuple[Role, str], ...] = (
    ("senior_debt", r"근저당|선순위|채권\s*최고액|융자|집주인\s*(?:의\s*)?대출"),
    ("debt", r"기존\s*대출|다른\s*대출|신용\s*대출|마이너스\s*통장|부채|빚|갚고\s*있"),
    ("loan", r"(?:주택\s*)?담보\s*대출|전세\s*(?:자금\s*)?대출|대출|주담대|빌려|빌리"),
    ("monthly_income", r"월급|월\s*소득|월\s*수입|실수령"),
    ("income", r"연봉|연\s*소득|연\s*수입|소득|수입|(?<![가-힣\d])연(?=\s*\d)"),  # "연 7천 벌어요"
    ("fee", r"관리비|복비|중개\s*보수|중개\s*수수료|수수료"),
    ("monthly_rent", r"월세|차임|임대료|(?<!\d)월(?=\s*(?:\d|$))"),  # "월 50"
    ("deposit", r"(?:전세|전셋)\s*(?:보증금|시세|호가|금|가|값)?|보증금"),
    ("sale_price", r"매매\s*(?:시세|호가|가격|가|값)?|집\s*값|집\s*가격|매가|매입가|매수가|분양가|시세|호가"),
    ("holding_cost", r"보유세|재산세"),
    ("assets", r"순자산|자산|재산"),
    ("price", r"예산|가격|금액"),
)
_ROLE_WORD = re.compile("|".join(f"(?P<{role}>{words})" for role, words in _ROLE_WORDS))
_ROLE_AFTER: tuple[tuple[Role, re.Pattern[str]], ...] = (
    ("senior_debt", re.compile(r"^\s*(?:원)?\s*(?:이|가|이나)?\s*(?:낀|껴|끼어|잡힌|잡혀|설정)")),
    ("sale_price", re.compile(r"^\s*(?:원)?\s*짜리")),
    ("loan", re.compile(r"^\s*(?:원)?\s*(?:을|를|의)?\s*(?:대출|주담대|빌려|빌리)")),
    ("debt", re.compile(r"^\s*(?:원)?\s*(?:을|를|씩)?\s*(?:갚|상환)")),
    (
        "income",
        re.compile(r"^\s*(?:원)?\s*(?:을|를|씩|정도|쯤|가량)?\s*(?:벌(?:어|고|이|었|면|지)|번다|법니)"),
    ),
)
_CLAUSE_END = re.compile(r"[,.?!\n]")
# A role word said to be absent ("기존 대출 없음") or describing the thing named next ("월세 받는 오피스텔
# 3억", "전세 끼고 10억 아파트") gives no role to the amount after it.
_NOT_ITS_ROLE = re.compile(
    r"\s*(?:이|가|은|는|을|를|도)?\s*(?:없|0\s*원|받는(?!데)|있는(?!데)|낀|끼고|끼인|잡힌)"
)
_PER_MONTH = re.compile(r"월(?!세|급|\s*(?:소득|수입))|매달|한\s*달")
# Bounds: "이하", "3억대", "5억~8억", "3억 정도".
_PARTICLE = r"\s*(?:원)?\s*(?:이|가|을|를|은|는|도)?\s*"
_QUALIFIER = re.compile(
    _PARTICLE
    + r"(?P<q>이하|까지|이내|안쪽|안으로|안에서|아래|밑|미만|이상|넘는|넘게|넘은|넘어|초과|부터|정도|쯤|"
    r"내외|안팎|전후|가량)"
)
_DECADE = re.compile(r"대(?=$|\s|[의에가는를로인도이])")  # "3억대": that 억 and the next
_RANGE_LINK = re.compile(r"\s*(?:원)?\s*(?:~|-|–|에서|부터)\s*")
_UPPER = {
    "이하": 0,
    "까지": 0,
    "이내": 0,
    "안쪽": 0,
    "안으로": 0,
    "안에서": 0,
    "아래": 0,
    "밑": 0,
    "미만": -1,
}
_LOWER = {"이상": 0, "부터": 0, "넘는": 1, "넘게": 1, "넘은": 1, "넘어": 1, "초과": 1}
# A lease figure changed with no amount of its own before it ("보증금에서 8천 빼주고"); 빼 takes it out.
_LEASE_ROLES = ("deposit", "monthly_rent")
# Turning part of it into rent takes it out too ("그중 1억 5천을 월세로 바꾸자"): it leaves the deposit;
# a 월세 lived in does not ("보증금 1억5천 월세로 살고").
_TAKEN_OUT = re.compile(
    r"^\s*(?:만\s*원|원)?\s*(?:을|를|만|씩|만큼)?\s*"
    r"(?:빼|뺀|(?:월세|월차임|차임)\s*(?:으로|로)(?!\s*\d|\s*(?:살|사는|사요|지내|거주)))"
)
# A deposit turned into monthly rent (전월세 전환), in the law's word or in everyday ones: "월세로 돌리자",
# "보증금에서 8천 빼고 그만큼 월세로", "보증금 3억으로 하고 나머지는 월세로".
CONVERSION = re.compile(
    r"전환|(?:월세|전세)\S{0,3}\s*(?:로\s*)?(?:돌리|돌려|바꾸|바꿔)"
    r"|(?:보증금|전세금).{0,15}(?:빼|낮추|낮춰|줄이|줄여|내리|내려|깎).{0,20}(?:월세|차임)"
    r"|(?:나머지|차액)\S{0,3}\s*(?:월세|차임)"
)
PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*(?:%|퍼센트|퍼|프로)")


@dataclass(frozen=True)
class Bounds:
    """A range asked, in 만원, both ends inclusive; None where open."""

    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class Amount:
    """One amount of a (normalized) text with its role. `change` says it changes the amount `base`
    (in 만원, None when no amount came before); `bound` is the range it asks for, if qualified."""

    money: Money
    role: Role
    change: Change | None = None
    base: int | None = None
    bound: Bounds | None = None
    approximate: bool = False

    @property
    def manwon(self) -> int:
        return self.money.manwon

    @property
    def fact(self) -> bool:
        """Said as it is (possibly "정도"), not as a bound and not as a change."""
        return self.change is None and (self.bound is None or self.approximate)

    @property
    def result(self) -> int | None:
        """The figure after the change: "3억인데 4천 올려" -> 34000."""
        if self.change == "to":
            return self.manwon
        if self.base is None:
            return None
        return self.base + self.manwon if self.change == "by" else self.base - self.manwon


@dataclass(frozen=True)
class PriceBounds:
    """The price or deposit asked (매매가, 전세금, 보증금) and the monthly rent asked (월세), in 만원."""

    price: Bounds = Bounds()
    monthly_rent: Bounds = Bounds()


def read_amounts(text: object) -> list[Amount]:
    """Every amount of the text with its role, in order (positions in `normalize(text)`)."""
    text = normalize(text)
    amounts: list[Amount] = []
    for money in find_money(text):
        amount = _read_one(text, money, amounts)
        if amounts and not amount.change and _RANGE_LINK.fullmatch(text[amounts[-1].money.end : money.start]):
            span = Bounds(min(amounts[-1].manwon, amount.manwon), max(amounts[-1].manwon, amount.manwon))
            amounts[-1], amount = replace(amounts[-1], bound=span), replace(amount, bound=span)
        amounts.append(amount)
    return amounts


def _read_one(text: str, money: Money, before: list[Amount]) -> Amount:
    previous = before[-1] if before else None
    between = text[previous.money.end if previous else 0 : money.start]
    clause = _CLAUSE_END.split(between)[-1]
    said = _role_before(clause)
    change = _change(text, money, between) if previous and clause == between else None
    if not change and (said in _LEASE_ROLES or not (said or previous)):
        change = _change(text, money, "")  # "보증금에서 8천 빼고", "4천 올려달래요": its base unsaid
    bound, approximate = _bound(text, money)
    if change:
        role = said or (previous.role if previous else "price")
        base = next((a for a in reversed(before) if a.role == role and a.fact), None)
        return Amount(money, role, change, base.manwon if base else None, bound, approximate)
    if previous and _RANGE_LINK.fullmatch(between):  # "월세 40~60": the other end of a range
        return Amount(money, said or previous.role)
    if previous and between.strip() == "/" and previous.role in ("deposit", "monthly_rent"):
        return Amount(money, "monthly_rent", bound=bound, approximate=approximate)  # "1000/50"
    role = _role_after(text[money.end : money.end + 12], said) or said or "price"
    if role in ("price", "sale_price") and previous and _rent_with_deposit(previous, between, money):
        role = "monthly_rent"
    if role == "monthly_rent" and text[money.end : money.end + 3].lstrip().startswith("/"):
        role = "deposit"  # "보증금/월세 1000/50": the first of the pair
    if role == "debt" and _PER_MONTH.search(clause):
        role = "debt_payment"  # "기존 대출 월 50만원", "매달 갚는 빚 30만원"
    return Amount(money, role, bound=bound, approximate=approximate)


def _rent_with_deposit(previous: Amount, between: str, money: Money) -> bool:
    return (
        previous.role == "deposit"
        and previous.fact
        and WITH_DEPOSIT.fullmatch(between) is not None
        and could_be_rent_of(previous.manwon, money.manwon)
    )


def _role_before(words: str) -> Role | None:
    found = [m for m in _ROLE_WORD.finditer(words) if not _NOT_ITS_ROLE.match(words, m.end())]
    if len(found) > 1 and found[-1].group() == "월":  # "관리비 월 10만원": 월 says per month
        found.pop()
    return found[-1].lastgroup if found else None  # type: ignore[return-value]  # group names are roles


def _role_after(after: str, said: Role | None) -> Role | None:
    for role, pattern in _ROLE_AFTER:
        # A debt repaid overrides a bare 월 before it: "월 50만원 갚고 있어요" is a repayment, not a rent.
        overrides = said in (None, "price") or (role == "debt" and said == "monthly_rent")
        if pattern.match(after) and (role == "senior_debt" or overrides):
            return role
    return None


def _change(text: str, money: Money, between: str) -> Change | None:
    after = text[money.end :]
    if (
        CHANGE_TO.match(after)
        and (CHANGE_LINK.match(between) or TO_RAISED.match(after))
        or DEMANDED.match(after)
    ):
        return "to"
    if RAISE_BY.match(after):
        return "by"
    return "cut" if CUT_BY.match(after) or _TAKEN_OUT.match(after) else None


def _bound(text: str, money: Money) -> tuple[Bounds | None, bool]:
    """The range an amount asks for by the words after it, and whether it is only approximate."""
    after = text[money.end : money.end + 12]
    value = money.manwon
    if _DECADE.match(after):
        step = 10 ** (len(str(value)) - len(str(value).rstrip("0")))
        return Bounds(value, value + step - 1), False
    m = _QUALIFIER.match(after)
    if not m:
        return None, False
    word = m["q"]
    if word in _UPPER:
        return Bounds(None, value + _UPPER[word]), False
    if word in _LOWER:
        return Bounds(value + _LOWER[word], None), False
    return Bounds(round(value * 0.9), round(value * 1.1)), True


# ---- what a question asks for -------------------------------------------------------------------------

_PRICE_ROLES = ("deposit", "sale_price", "price")


def price_bounds(text: object) -> PriceBounds:
    """The price/deposit and monthly-rent ranges asked: "10억 이하", "5억~8억", "5억에서 8억 사이",
    "8억 넘는", "3억대", "3억 정도" (±10 %), or one lone amount (both ends equal to it). Incomes, loans,
    debts and fees are not prices."""
    amounts = read_amounts(text)
    return PriceBounds(
        price=_bounds_of([a for a in amounts if a.role in _PRICE_ROLES]),
        monthly_rent=_bounds_of([a for a in amounts if a.role == "monthly_rent"]),
    )


def _bounds_of(amounts: list[Amount]) -> Bounds:
    qualified = [a.bound for a in amounts if a.bound]
    if qualified:  # "5억~8억", "5억 이상 8억 이하": the first lower and the first upper bound
        lows = [b.low for b in qualified if b.low is not None]
        highs = [b.high for b in qualified if b.high is not None]
        return Bounds(lows[0] if lows else None, highs[0] if highs else None)
    if len(amounts) == 1:
        return Bounds(amounts[0].manwon, amounts[0].manwon)
    return Bounds()  # several unqualified amounts are a change or a comparison, not a range


def bounds_text(deal_type: str | None, price: Bounds, monthly_rent: Bounds) -> str:
    """The ranges asked, as a person reads them: "10억 이하", "보증금 1,000만원 이하, 월세 60만원 이하".
    Beside a 월세 the price is named 보증금, so neither can be read as the other."""
    named = deal_type == "monthly" or monthly_rent != Bounds()
    parts = [("보증금 " if named else "", price), ("월세 ", monthly_rent)]
    return ", ".join(name + _range_text(bounds) for name, bounds in parts if bounds != Bounds())


def _range_text(b: Bounds) -> str:
    if b.low is not None and b.high is not None:
        return format_manwon(b.low) if b.low == b.high else f"{format_manwon(b.low)}~{format_manwon(b.high)}"
    # Ends are whole 만원, so "10억 넘는" is kept as 100,001 and "10억 미만" as 99,999: said as asked.
    if b.high is not None:
        below = b.high + 1
        return f"{format_manwon(below)} 미만" if below % 10 == 0 else f"{format_manwon(b.high)} 이하"
    assert b.low is not None  # bounds_text leaves out a range with neither end
    above = b.low - 1
    return f"{format_manwon(above)} 초과" if above % 10 == 0 else f"{format_manwon(b.low)} 이상"


@dataclass(frozen=True)
class GivenFigures:
    """The figures the person gave, by role, in 만원 (None: not said). Each is the first said."""

    deposit: int | None = None  # 보증금, 전세금 as it stands
    monthly_rent: int | None = None  # 월세 as it stands
    requested_deposit: int | None = None  # the deposit after the change asked
    requested_monthly_rent: int | None = None
    sale_price: int | None = None  # 매매가, 집값, 시세
    loan: int | None = None  # 대출
    senior_debt: int | None = None  # 근저당, 선순위 채권
    income: int | None = None  # annual: 연봉, or 월급 × 12


def given_figures(amounts: list[Amount]) -> GivenFigures:
    def first(role: Role) -> int | None:
        return next((a.manwon for a in amounts if a.role == role and a.fact), None)

    def requested(role: Role) -> int | None:
        return next((a.result for a in amounts if a.role == role and a.change and a.result), None)

    monthly_income = first("monthly_income")
    return GivenFigures(
        deposit=first("deposit"),
        monthly_rent=first("monthly_rent"),
        requested_deposit=requested("deposit"),
        requested_monthly_rent=requested("monthly_rent"),
        sale_price=first("sale_price"),
        loan=first("loan"),
        senior_debt=first("senior_debt"),
        income=first("income") or (monthly_income * 12 if monthly_income else None),
    )


def percents(text: object) -> list[float]:
    """Every percentage written, in order: "5%", "5퍼센트", "5프로" -> 5.0."""
    return [value for m in PERCENT.finditer(normalize(text)) if (value := number(m[1])) is not None]


def parse_percent(text: object) -> float | None:
    """The first percentage written."""
    found = percents(text)
    return found[0] if found else None
