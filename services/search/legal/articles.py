"""Statute articles as the legal index holds them, read from the `legal_articles` read model."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[3] / "infra" / "seed" / "legal" / "corpus.jsonl"

# The 주택법 and 공동주택관리법 families start each article with a 장/절 breadcrumb ("제2장 … > 제44조(…)")
# that is not statute text; the corpus README says to strip it before showing the article.
_BREADCRUMB = re.compile(r"^(?:[^>\n]*> )*")
_DECREE_SUFFIXES = (" 시행령", " 시행규칙")

# Stand-alone rules belong to the statute that delegates them (corpus README, `parent_law`): a question
# about the statute is answered by the rule as much as by the statute's own decree.
_RULE_FAMILY = {
    "부동산등기규칙": "부동산등기법",
    "공인중개사의 매수신청대리인 등록 등에 관한 규칙": "공인중개사법",
    "공동주택 분양가격의 산정 등에 관한 규칙": "주택법",
    "공동주택 층간소음의 범위와 기준에 관한 규칙": "공동주택관리법",
}


@dataclass(frozen=True, slots=True)
class Article:
    article_id: str
    law_title: str
    doc_type: str  # 법률 / 시행령 / 시행규칙 / 대법원규칙
    enforcement_date: str  # ISO date of the version the text is from
    article_number: str
    article_title: str | None
    text: str
    is_supplementary: bool = False  # 부칙
    is_deleted: bool = False  # 삭제: only a stub is left
    is_tenant_protection: bool | None = None

    @property
    def family(self) -> str:
        """The statute the article belongs to or was made under (시행령 -> its 법률)."""
        for suffix in _DECREE_SUFFIXES:
            if self.law_title.endswith(suffix):
                return self.law_title.removesuffix(suffix)
        return _RULE_FAMILY.get(self.law_title, self.law_title)

    @property
    def is_future_version(self) -> bool:
        """A version not yet in force (`…/제25조@시행2026-02-15`); the version in force has the plain id."""
        return "@시행" in self.article_id

    @property
    def body(self) -> str:
        return _BREADCRUMB.sub("", self.text, count=1)

    @property
    def label(self) -> str:
        title = f"({self.article_title})" if self.article_title else ""
        prefix = "부칙 " if self.is_supplementary else ""
        return f"{self.law_title} {prefix}{self.article_number}{title}"


def article_from_row(row: Mapping[str, Any]) -> Article:
    """From a `legal_articles` row, or a corpus.jsonl record (whose key is `id`)."""
    return Article(
        article_id=row.get("article_id") or row["id"],
        law_title=row["law_title"],
        doc_type=row["doc_type"],
        enforcement_date=str(row["enforcement_date"]),
        article_number=row["article_number"],
        article_title=row.get("article_title"),
        text=row["text"],
        is_supplementary=bool(row.get("is_supplementary")),
        is_deleted=bool(row.get("is_deleted")),
        is_tenant_protection=row.get("is_tenant_protection"),
    )


async def load_articles(conn: Any) -> list[Article]:
    """Every article of the read model, in a stable order (the index's document numbers follow it)."""
    cursor = await conn.execute("SELECT * FROM legal_articles ORDER BY article_id")
    return [article_from_row(row) for row in await cursor.fetchall()]


def corpus_articles(path: Path = CORPUS) -> list[Article]:
    """The seed corpus file as the index reads it (the offline path: evaluation, shipped vectors)."""
    with path.open(encoding="utf-8") as lines:
        return [article_from_row(json.loads(line)) for line in lines]
