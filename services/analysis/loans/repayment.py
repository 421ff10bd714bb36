"""Loan repayment (상환 방식) arithmetic: 원리금균등 (equal payment), 원금균등 (equal principal) and
만기일시 (bullet), month by month, with a yearly summary. Money in 만원, rates a year as fractions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Method = Literal["equal_payment", "equal_principal", "bullet"]
METHOD_NAMES: dict[Method, str] = {
    "equal_payment": "원리금균등",
    "equal_principal": "원금균등",
    "bullet": "만기일시",
}


@dataclass(frozen=True)
class Month:
    interest: float
    principal: float
    balance: float  # after this month's payment

    @property
    def payment(self) -> float:
        return self.interest + self.principal


@dataclass(frozen=True)
class Year:
    year: int
    payment: float
    interest: float
    principal: float
    balance: float  # at the year's end


def level_payment(principal: float, annual_rate: float, months: int) -> float:
    """원리금균등 monthly payment: P·r / (1 − (1+r)^−n); with no interest simply P / n."""
    r = annual_rate / 12
    if r == 0:
        return principal / months
    return principal * r / (1 - (1 + r) ** -months)


def schedule(principal: float, annual_rate: float, months: int, method: Method) -> list[Month]:
    r, balance, rows = annual_rate / 12, principal, []
    level = level_payment(principal, annual_rate, months)
    for k in range(1, months + 1):
        interest = balance * r
        if method == "equal_payment":
            paid = level - interest
        elif method == "equal_principal":
            paid = principal / months
        else:
            paid = balance if k == months else 0.0
        paid = balance if k == months else paid  # the last month clears rounding drift
        balance -= paid
        rows.append(Month(interest, paid, balance))
    return rows


def yearly(months: list[Month]) -> list[Year]:
    return [
        Year(
            year=i // 12 + 1,
            payment=sum(m.payment for m in months[i : i + 12]),
            interest=sum(m.interest for m in months[i : i + 12]),
            principal=sum(m.principal for m in months[i : i + 12]),
            balance=months[min(i + 11, len(months) - 1)].balance,
        )
        for i in range(0, len(months), 12)
    ]
