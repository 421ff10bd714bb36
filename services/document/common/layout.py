"""What a document is laid out in (headings, paragraphs and tables, which the Markdown page and the DOCX
render alike: common/render.py), and the parts both contract forms share: the blanks left for the parties,
sums and dates in words, the 특약 table, the parties' table, a form's fixed clauses read from its Markdown
file, and the review shown beside the contract on the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from services.document.common.findings import Findings
from services.housing.money import contract_amount

BLANK = "＿＿＿＿＿＿"
BLANK_DATE = "＿＿＿＿년 ＿＿월 ＿＿일"


@dataclass(frozen=True)
class Heading:
    text: str
    level: int


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


Block = Heading | Paragraph | Table


def special_terms_table(terms: list[str]) -> list[Block]:
    rows = tuple((str(n), term) for n, term in enumerate(terms, 1)) or (("-", "없음"),)
    return [Heading("특약사항", 2), Table(("번호", "내용"), rows)]


def parties_table(parties: tuple[tuple[str, str | None], ...], broker_office: str | None) -> list[Block]:
    """The parties sign here; 주소·주민등록번호·전화 are theirs to write, not ours to know."""
    header = ("구분", "성명", "주소", "주민등록번호", "전화", "서명 또는 날인")
    rows = tuple((role, name or BLANK, "", "", "", "(인)") for role, name in parties)
    blocks: list[Block] = [Heading("계약 당사자", 2), Table(header, rows)]
    if broker_office:
        broker_header = ("구분", "사무소 명칭", "사무소 소재지", "등록번호", "대표", "서명 및 날인")
        broker = (("개업공인중개사", broker_office, "", "", "", "(인)"),)
        blocks += [Heading("개업공인중개사", 2), Table(broker_header, broker)]
    return blocks


def review_section(review: Findings) -> list[Block]:
    """For the page only, not the contract: what the review found and the 특약 it suggests."""
    blocks: list[Block] = [Heading("검토 의견", 2)]
    marks = {"error": "❗", "warning": "⚠️", "note": "ℹ️"}
    blocks += [Paragraph(f"{marks[f.severity]} {f.message}") for f in review.findings]
    if review.suggested_terms:
        blocks.append(Heading("권장 특약 (당사자가 합의하면 특약사항에 넣으세요)", 3))
        blocks += [Paragraph(f"- {term}") for term in review.suggested_terms]
    return blocks


@cache
def standard_clauses_text(path: Path) -> tuple[tuple[str, str], ...]:
    """A form's fixed clauses (the lease's 제4조~제13조, the sale's), kept as the form's text in a Markdown
    file rather than in code (lease/clauses.md, sale/clauses.md): one '## 제n조(제목)' heading, then the
    clause on one line."""
    text = path.read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)\n(.+)$", text, re.MULTILINE)
    return tuple((title, body.format(BLANK=BLANK, BLANK_DATE=BLANK_DATE)) for title, body in sections)


def amount_text(won: int | None) -> str:
    return contract_amount(won) if won is not None else f"금 {BLANK}원정(₩{BLANK})"


def payment_text(won: int | None, when: date | None, verb: str) -> str:
    return f"{amount_text(won)}은 {date_text(when)}에 {verb}"


def date_text(day: date | None) -> str:
    return f"{day.year}년 {day.month}월 {day.day}일" if day else BLANK_DATE
