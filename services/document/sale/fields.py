"""The fields of a 부동산매매계약서, collected every document's way (common/fields.py): from earlier
turns, the query and the person's answers, a later source winning. Nothing is guessed: a field no source
states stays None and is asked for if the contract cannot be signed without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from services.document.common.fields import (
    AREA,
    BROKER,
    MORTGAGE,
    area_m2,
    gather,
    keyed_fields,
    keyword_pattern,
    take_special_terms,
)
from services.housing.addresses import region_address


class SaleFields(BaseModel):
    """What the sale contract states. Money in won; dates as calendar dates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seller_name: str | None = None  # 매도인
    buyer_name: str | None = None  # 매수인
    address: str | None = None  # 소재지
    area_m2: float | None = Field(default=None, gt=0)  # 면적 (전용)
    price_won: int | None = Field(default=None, ge=0)  # 매매대금
    down_payment_won: int | None = Field(default=None, ge=0)  # 계약금
    interim_payment_won: int | None = Field(default=None, ge=0)  # 중도금
    interim_payment_date: date | None = None
    balance_won: int | None = Field(default=None, ge=0)  # 잔금
    balance_date: date | None = None
    contract_date: date | None = None  # 계약일 (계약금을 주고받는 날)
    special_terms: list[str] = []  # 특약사항
    broker_office: str | None = None  # 중개업소
    mortgage: bool = False  # 근저당·융자가 있다고 말함
    land_permit_zone: bool = False  # 토지거래허가구역이라고 말함


LABELS = {
    "seller_name": ("매도인 성명", "예: 홍길동"),
    "buyer_name": ("매수인 성명", "예: 김영희"),
    "address": ("부동산 소재지", "예: 서울특별시 마포구 아현동 123 ○○아파트 101동 1203호"),
    "area_m2": ("면적(전용)", "예: 84.97㎡ 또는 25평"),
    "price_won": ("매매대금", "예: 9억 5천만원"),
    "down_payment_won": ("계약금", "보통 매매대금의 10%, 예: 9천500만원"),
    "interim_payment_won": ("중도금", "없으면 비워 두세요"),
    "interim_payment_date": ("중도금 지급일", "예: 2026-04-15"),
    "balance_won": ("잔금", "예: 7억 6천만원"),
    "balance_date": ("잔금 지급일", "소유권 이전 서류와 맞바꾸는 날, 예: 2026-05-29"),
    "contract_date": ("계약일", "계약금을 주고받는 날, 예: 2026-03-20"),
    "special_terms": ("특약사항", "한 줄에 하나씩"),
    "broker_office": ("중개업소", "예: ○○공인중개사사무소"),
}

# Without these the contract cannot be signed: the parties, the property, the price and when it is paid.
# The area is not among them: it is copied from the 등기사항증명서 at signing, and the form leaves it blank
# rather than holding the contract back for a figure the person rarely knows by heart.
REQUIRED = (
    "seller_name",
    "buyer_name",
    "address",
    "price_won",
    "down_payment_won",
    "contract_date",
    "balance_date",
)

KEYWORDS: tuple[tuple[str | None, str], ...] = (
    ("price_won", r"매매\s*대금|매매\s*가격|매매\s*금액|매매가|거래\s*(?:가격|금액)"),
    ("down_payment_won", r"계약금"),
    ("interim_payment_won", r"중도금"),
    ("balance_won", r"잔금|잔액"),
    ("seller_name", r"매도인|파는\s*(?:사람|분)"),
    ("buyer_name", r"매수인|사는\s*(?:사람|분)"),
    ("address", r"소재지|주소지|물건지|주소"),
    ("contract_date", r"계약일|계약\s*날짜"),
    ("broker_office", r"중개업소|중개사무소"),
    (None, r"면적|전용|등기|근저당|토지\s*거래\s*허가"),
)
KEYWORD_RE = keyword_pattern(KEYWORDS)
LAND_PERMIT = re.compile(r"토지\s*거래\s*허가")


def collect_sale_fields(
    query: str,
    previous_queries: Iterable[str] = (),
    answers: Mapping[str, Any] | None = None,
    today: date | None = None,
) -> tuple[SaleFields, dict[str, str]]:
    """The sale contract's fields from every source, and the answers that could not be read; `today` is
    the day the person asked, against which '내일' or '내년 2월 28일' is read."""
    read = partial(sale_fields_from_text, today=today)
    return gather(SaleFields, read, [*previous_queries, query], answers or {}, today=today)


def sale_fields_from_text(text: str, today: date | None = None) -> dict[str, Any]:
    """Every field of a sale a free Korean sentence states, its dates read against `today`."""
    found: dict[str, Any] = {}
    text = take_special_terms(text.replace("：", ":"), found)
    found.update(keyed_fields(text, KEYWORD_RE, KEYWORDS, today))
    if "address" not in found and (address := region_address(text)):
        found["address"] = address
    if AREA.search(text):
        found["area_m2"] = area_m2(text)
    if "broker_office" not in found and (broker := BROKER.search(text)):
        found["broker_office"] = broker.group()
    if MORTGAGE.search(text):
        found["mortgage"] = True
    if LAND_PERMIT.search(text):
        found["land_permit_zone"] = True
    return found


def missing_sale_fields(fields: SaleFields) -> list[str]:
    missing = [name for name in REQUIRED if getattr(fields, name) is None]
    if fields.interim_payment_won and fields.interim_payment_date is None:
        missing.append("interim_payment_date")
    return missing
