"""The 부동산매매계약서 as blocks (every document's blocks, common/layout.py), so the Markdown page
and the DOCX render the same content. A field nobody gave is a blank for the parties, never a made-up
value; the duties the 부동산 거래신고법 lays on the parties are written with their articles and deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from contracts.values import Citation
from services.document.common.layout import (
    BLANK,
    Block,
    Heading,
    Paragraph,
    Table,
    amount_text,
    date_text,
    parties_table,
    payment_text,
    special_terms_table,
    standard_clauses_text,
)
from services.document.sale.checks import SaleReview
from services.document.sale.fields import SaleFields
from services.document.sale.rules import SaleRules

SALE_TITLE = "부동산매매계약서"
SALE_CLAUSES_FILE = Path(__file__).with_name("clauses.md")


def sale_contract(review: SaleReview, rules: SaleRules, statutes: Mapping[str, Citation]) -> list[Block]:
    f = review.fields
    return [
        Heading(SALE_TITLE, 1),
        Paragraph(
            f"매도인({f.seller_name or BLANK})과 매수인({f.buyer_name or BLANK})은 "
            "아래 표시 부동산에 관하여 다음 계약 내용과 같이 매매계약을 체결한다."
        ),
        Heading("부동산의 표시", 2),
        Table(
            ("구분", "내용"),
            (("소재지", f.address or BLANK), ("면적", f"{f.area_m2:g}㎡" if f.area_m2 else f"{BLANK}㎡")),
        ),
        *price_section(f),
        *[
            b
            for title, text in standard_clauses_text(SALE_CLAUSES_FILE)
            for b in (Heading(title, 3), Paragraph(text))
        ],
        *report_section(f, rules, statutes),
        *special_terms_table(f.special_terms),
        Paragraph(
            "본 계약을 증명하기 위하여 계약 당사자가 이의 없음을 확인하고 각각 서명·날인한다. "
            f"계약일: {date_text(f.contract_date)}"
        ),
        *parties_table((("매도인", f.seller_name), ("매수인", f.buyer_name)), f.broker_office),
    ]


def price_section(f: SaleFields) -> list[Block]:
    """제1조(목적): every sum in words and digits, with when it is paid."""
    interim = (
        payment_text(f.interim_payment_won, f.interim_payment_date, "지불하며")
        if f.interim_payment_won
        else "없음"
    )
    rows = (
        ("매매대금", amount_text(f.price_won)),
        (
            "계약금",
            f"{amount_text(f.down_payment_won)}은 계약시({date_text(f.contract_date)})에 "
            "지불하고 영수함. 영수자 (인)",
        ),
        ("중도금", interim),
        ("잔금", payment_text(f.balance_won, f.balance_date, "지불한다")),
    )
    return [
        Heading("계약내용", 2),
        Heading("제1조(목적)", 3),
        Paragraph(
            "위 부동산의 매매에 대하여 매도인과 매수인은 합의에 의하여 "
            "매매대금을 아래와 같이 지불하기로 한다."
        ),
        Table(("항목", "금액 및 지급 시기"), rows),
    ]


def report_section(f: SaleFields, rules: SaleRules, statutes: Mapping[str, Citation]) -> list[Block]:
    """The parties' duties under the 부동산 거래신고법, each with its article and, where it has one, the
    last day counted from the contract date."""
    rows = []
    for duty in rules.duties:
        due = duty.due(f.contract_date)
        when = f" 기한: {date_text(due)}까지." if due else ""
        cited = statutes.get(duty.article_id)
        rows.append((duty.title, f"{duty.text}{when}", cited.reference if cited else duty.article_id))
    return [
        Heading("거래 신고 (부동산 거래신고 등에 관한 법률)", 2),
        Table(("의무", "내용", "근거 조문"), tuple(rows)),
    ]
