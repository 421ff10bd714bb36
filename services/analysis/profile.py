"""The person's own figures and circumstances (신상·재무 정보) read from a step: the step's inputs first,
then the question's words. Money amounts take their roles as the housing package reads them
(services/housing/amounts.py: "연봉 6천", "기존 대출 월 50만원", "8억짜리 아파트"); an amount with no role
of the person's finances is a price. Nothing is filled in that the person did not say: absent stays None."""

from __future__ import annotations

import re
from dataclasses import dataclass

from contracts.entities import AmountRole, DealType
from services.analysis.case import Case
from services.housing import household
from services.housing.household import first_int

# The profile's figure each amount role fills; a 근저당 or a fee is not the person's.
_FIGURES: dict[AmountRole, str] = {
    "income": "income",
    "monthly_income": "income",
    "debt": "debt_balance",
    "debt_payment": "debt_monthly",
    "loan": "loan",
    "monthly_rent": "rent",
    "deposit": "deposit",
    "holding_cost": "holding",
    "assets": "assets",
    "sale_price": "price",
    "price": "price",
}
_AGE = re.compile(r"만\s*(\d{1,2})\s*세|(\d{1,2})\s*(?:살|세)")
_RATE = re.compile(
    r"(?:금리|이자율?|이율)\s*(?:는|은|가|이)?\s*(?:연\s*)?(\d+(?:\.\d+)?)\s*(?:%|퍼센트|프로)"
)
_TERM = re.compile(r"(\d{1,2})\s*년\s*(?:만기|상환|분할)|만기\s*(\d{1,2})\s*년")
_HOLD = re.compile(r"(\d{1,2})\s*년\s*(?:후|뒤|보유|있다가|동안\s*보유)")
_AREA = re.compile(r"전용\s*(\d{2,3}(?:\.\d+)?)\s*(?:㎡|m2|제곱미터)?")
METHOD_WORDS = {"equal_principal": "원금균등", "equal_payment": "원리금균등", "bullet": "만기일시"}


@dataclass(frozen=True)
class Profile:
    income_manwon: float | None = None  # 연소득 (부부합산이면 그 값)
    price_manwon: float | None = None  # 매매가
    loan_manwon: float | None = None  # 받으려는 대출
    debt_monthly_manwon: float | None = None  # 기존 대출 월 상환액
    debt_balance_manwon: float | None = None  # 기존 대출 잔액 (상환액을 모를 때만)
    deposit_manwon: float | None = None  # 받는 임대보증금(전세금)
    rent_monthly_manwon: float | None = None  # 받는 월세
    holding_annual_manwon: float | None = None  # 연 보유세
    assets_manwon: float | None = None  # 순자산
    house_count: int | None = None  # 지금 가진 주택 수
    adds_home: bool = False  # 가진 집을 두고 한 채 더 산다 (추가 구입)
    first_home: bool = False  # 생애최초
    age: int | None = None  # 만 나이
    married: bool | None = None
    marriage_years: float | None = None
    engaged: bool = False  # 결혼 예정
    children: int | None = None
    newborn: bool = False  # 2년 내 출산
    rate: float | None = None  # 대출 금리 (소수)
    term_years: int | None = None
    holding_years: int | None = None
    method: str | None = None
    area_m2: float | None = None  # 전용면적


def homes_for_lending(p: Profile) -> int | None:
    """The homes the lending rules count: a 1주택 household that keeps its home and buys another is a
    다주택 buyer (추가 구입), not a 처분조건 1주택 one."""
    return 2 if p.house_count == 1 and p.adds_home else p.house_count


def read_profile(case: Case) -> Profile:
    text = case.query
    money: dict[str, float] = {}
    for amount in case.entities.amounts:
        if figure := _FIGURES.get(amount.role):
            money.setdefault(figure, float(amount.manwon * (12 if amount.role == "monthly_income" else 1)))
    if household.says_no_income(text):
        money["income"] = 0.0
    if household.says_no_debt(text):
        money["debt_monthly"] = 0.0
    houses, first_home = household.houses(text)
    married, years, engaged = household.marriage(text)
    children, newborn = household.children(text)
    return Profile(
        income_manwon=_pick(case, money, "income", "income_manwon", "annual_income_manwon"),
        price_manwon=_pick(case, money, "price", "price_manwon", "sale_price_manwon") or _entity_price(case),
        loan_manwon=_pick(case, money, "loan", "loan_manwon"),
        debt_monthly_manwon=_pick(case, money, "debt_monthly", "existing_debt_monthly_manwon"),
        debt_balance_manwon=_pick(case, money, "debt_balance", "existing_debt_balance_manwon"),
        deposit_manwon=_pick(case, money, "deposit", "deposit_manwon"),
        rent_monthly_manwon=_pick(case, money, "rent", "monthly_rent_manwon"),
        holding_annual_manwon=_pick(case, money, "holding", "holding_cost_annual_manwon"),
        assets_manwon=_pick(case, money, "assets", "net_assets_manwon"),
        house_count=_int(case.number("house_count"), houses),
        adds_home=household.adds_a_home(text),
        first_home=first_home,
        age=_int(case.number("age"), first_int(_AGE, text)),
        married=married,
        marriage_years=case.number("marriage_years") or years,
        engaged=engaged,
        children=_int(case.number("children"), children),
        newborn=newborn,
        rate=_rate(case, text),
        term_years=_int(case.number("term_years"), first_int(_TERM, text)),
        holding_years=_int(case.number("holding_years"), first_int(_HOLD, text)),
        method=case.text("repayment_method") or next((m for m, w in METHOD_WORDS.items() if w in text), None),
        area_m2=case.number("area_m2") or _first_float(_AREA, text),
    )


def _pick(case: Case, money: dict[str, float], role: str, *keys: str) -> float | None:
    given = case.number(*keys)
    return given if given is not None else money.get(role)


def _entity_price(case: Case) -> float | None:
    """A purchase question's price band from the planner ("8억 이하 아파트"): its upper end."""
    if case.entities.deal_type not in (None, DealType.SALE):
        return None
    return case.number("price_max_manwon")


def _int(given: float | None, parsed: int | None) -> int | None:
    return int(given) if given is not None else parsed


def _first_float(rx: re.Pattern[str], text: str) -> float | None:
    m = rx.search(text)
    return float(m.group(1)) if m else None


def _rate(case: Case, text: str) -> float | None:
    given = case.number("rate_pct")
    if given is not None:
        return given / 100
    m = _RATE.search(text)
    return float(m.group(1)) / 100 if m else None
