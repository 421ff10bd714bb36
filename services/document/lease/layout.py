"""The 주택임대차 표준계약서 (법무부·국토교통부 form) as blocks of headings, paragraphs and tables,
so the Markdown page and the DOCX render the very same content (the blocks and the parts the sale's
form shares with it: common/layout.py; the clauses 제4조~제13조: clauses.md).

Every field appears in a table (the DOCX test reads them back from there). A field nobody gave is a
blank line for the parties to fill in by hand, never a made-up value.
"""

from __future__ import annotations

from pathlib import Path

from services.document.common.layout import (
    BLANK,
    BLANK_DATE,
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
from services.document.lease.checks import Review
from services.document.lease.fields import LeaseFields
from services.housing.dates import months_between

TITLE = "주택임대차 표준계약서"
CLAUSES_FILE = Path(__file__).with_name("clauses.md")


def lease_contract(review: Review) -> list[Block]:
    f = review.fields
    return [
        Heading(TITLE, 1),
        Paragraph(
            f"임대인({f.landlord_name or BLANK})과 임차인({f.tenant_name or BLANK})은 "
            "아래와 같이 임대차 계약을 체결한다."
        ),
        *property_section(f),
        *payment_section(f),
        *term_section(f),
        *standard_clauses(),
        *special_terms_section(f),
        Paragraph(
            "본 계약을 증명하기 위하여 계약 당사자가 이의 없음을 확인하고 각각 서명·날인 후 임대인, 임차인, "
            "개업공인중개사는 매 장마다 간인하여야 하며, 각각 1통씩 보관한다. "
            f"계약일: {BLANK_DATE}"
        ),
        *parties_section(f),
    ]


def property_section(f: LeaseFields) -> list[Block]:
    """[임차주택의 표시] 부동산의 표시."""
    kind = "갱신계약" if f.renewal else "신규 계약"
    form = "보증금 있는 월세" if f.monthly_rent_won else "전세"
    rows = (
        ("소재지", f.address or BLANK),
        ("임차할 부분", f.leased_part or BLANK),
        ("면적", f"{f.area_m2:g}㎡" if f.area_m2 else f"{BLANK}㎡"),
        ("계약의 종류", f"{kind} ({form})"),
    )
    return [Heading("임차주택의 표시", 2), Table(("구분", "내용"), rows)]


def payment_section(f: LeaseFields) -> list[Block]:
    """제1조(보증금과 차임): every sum in words and digits, with when it is paid."""
    rows = (
        ("보증금", amount_text(f.deposit_won)),
        ("계약금", f"{amount_text(f.down_payment_won)}은 계약시에 지불하고 영수함. 영수자 (인)"),
        (
            "중도금",
            payment_text(f.interim_payment_won, f.interim_payment_date, "지불하며")
            if f.interim_payment_won
            else "없음",
        ),
        ("잔금", payment_text(f.balance_won, f.balance_date, "지불한다")),
        ("차임(월세)", _rent(f)),
        (
            "관리비",
            f"(정액) {amount_text(f.maintenance_fee_won)}"
            if f.maintenance_fee_won
            else f"(정액인 경우) 금 {BLANK}원정",
        ),
    )
    return [
        Heading("계약내용", 2),
        Heading("제1조(보증금과 차임)", 3),
        Paragraph(
            "위 부동산의 임대차에 관하여 임대인과 임차인은 합의에 의하여 보증금 및 차임을 "
            "아래와 같이 지불하기로 한다."
        ),
        Table(("항목", "금액 및 지급 시기"), rows),
    ]


def term_section(f: LeaseFields) -> list[Block]:
    """제2조(임대차기간)."""
    start, end = date_text(f.term_start), date_text(f.term_end)
    length = f" ({months_between(f.term_start, f.term_end):.0f}개월)" if f.term_start and f.term_end else ""
    return [
        Heading("제2조(임대차기간)", 3),
        Paragraph(
            "임대인은 임차주택을 임대차 목적대로 사용·수익할 수 있는 상태로 "
            f"{start}까지 임차인에게 인도하고, 임대차기간은 인도일로부터 {end}까지로 한다."
        ),
        Table(("항목", "내용"), (("인도일", start), ("임대차기간", f"{start}부터 {end}까지{length}"))),
    ]


def standard_clauses() -> list[Block]:
    """제3조~제13조 as the government's form states them (제3조 and 제4조 with their tables)."""
    blocks: list[Block] = [
        Heading("제3조(입주 전 수리)", 3),
        Paragraph(
            "임대인과 임차인은 임차주택의 수리가 필요한 시설물 및 비용부담에 관하여 다음과 같이 합의한다."
        ),
        Table(
            ("구분", "내용"),
            (
                ("수리 필요 시설", f"□ 없음  □ 있음 (수리할 내용: {BLANK})"),
                ("수리 완료 시기", f"□ 잔금 지급 기일인 {BLANK_DATE}까지  □ 기타 ({BLANK})"),
                (
                    "약정한 수리 완료 시기까지 미 수리한 경우",
                    "□ 수리비를 임차인이 임대인에게 지급하여야 할 보증금 또는 차임에서 공제  "
                    f"□ 기타 ({BLANK})",
                ),
            ),
        ),
    ]
    for title, text in standard_clauses_text(CLAUSES_FILE):
        blocks += [Heading(title, 3), Paragraph(text)]
        if title.startswith("제4조"):
            blocks.append(Table(("부담", "수선 내용"), (("임대인 부담", BLANK), ("임차인 부담", BLANK))))
    return blocks


def special_terms_section(f: LeaseFields) -> list[Block]:
    terms = list(f.special_terms)
    if f.short_term_reason:
        terms.append(f"임대차기간을 2년 미만으로 정한 사유: {f.short_term_reason}")
    return special_terms_table(terms)


def parties_section(f: LeaseFields) -> list[Block]:
    return parties_table((("임대인", f.landlord_name), ("임차인", f.tenant_name)), f.broker_office)


def _rent(f: LeaseFields) -> str:
    if not f.monthly_rent_won:
        return "없음 (전세)"
    day = "말일" if f.rent_day == 31 else f"{f.rent_day}일" if f.rent_day else f"{BLANK}일"
    return f"{amount_text(f.monthly_rent_won)}은 매월 {day}에 지불한다 (입금계좌: {BLANK})"
