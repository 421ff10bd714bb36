"""What the core articles say, in one sentence a person understands (infra/seed/legal/answers.toml).

A legal question in rules mode would otherwise be answered by quoting the best-matching article, which
is the right law but rarely a sentence that answers ("제6조① 임대인이 … 기간에 … 통지하지 아니한 경우에는
…"). For the subjects people ask about most, the rule book holds the answer as the articles put it, with
the articles and paragraphs it rests on; the legal search leads with it when the question asks about its
subject.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from services.housing.dates import add_months
from services.housing.money import format_manwon

RULES = Path(__file__).resolve().parents[2] / "infra" / "seed" / "legal" / "answers.toml"


@dataclass(frozen=True)
class ArticleRef:
    article_id: str
    paragraph: int  # 0: the article has no numbered paragraphs


@dataclass(frozen=True)
class Threshold:
    """Lines an article draws on a lease: it binds when the deposit or the monthly rent is over its line."""

    deposit_over_manwon: int
    monthly_rent_over_manwon: int
    over: str  # the verdict when a figure is over: "신고 대상입니다"
    within: str  # when both are within: "신고 대상이 아닙니다"

    def verdict(self, deposit: int | None, monthly_rent: int | None) -> str | None:
        """The verdict for the figures given, opening with them; None when they cannot decide (no
        figure, or only figures within their lines while the other one is unknown)."""
        given = [f"보증금 {format_manwon(deposit)}" if deposit is not None else None]
        given.append(f"월 차임 {format_manwon(monthly_rent)}" if monthly_rent else None)  # 전세: none
        figures = "·".join(g for g in given if g)
        deposit_line = format_manwon(self.deposit_over_manwon)
        rent_line = format_manwon(self.monthly_rent_over_manwon)
        lines = f"보증금 {deposit_line}, 월 차임 {rent_line}"
        if (deposit or 0) > self.deposit_over_manwon or (monthly_rent or 0) > self.monthly_rent_over_manwon:
            return f"{figures}이면 {self.over}({lines} 중 하나라도 넘으면 해당)."
        if deposit is None or monthly_rent is None:
            return None
        return f"{figures}이면 {self.within}({lines}을 모두 넘지 않음)."


@dataclass(frozen=True)
class StatuteAnswer:
    subject: str
    asks: re.Pattern[str]
    says: str
    articles: tuple[ArticleRef, ...]
    threshold: Threshold | None = None
    # A rule of a law the shipped statutes do not hold (민법's 수선 의무, 계약금): the answer names it, and
    # the search cites no article of its own beside it, since none of them is the one that says it.
    outside: str | None = None
    # A general rule (a term against the tenant is void) decides a question about a specific clause
    # before that clause's right does: when it is asked about, it leads wherever the question names it.
    general: bool = False
    # A notice the article requires so many months before the lease ends (and, for a window, no earlier
    # than so many): with the end date said, the answer opens with the days it falls on.
    notice_months: int | None = None
    notice_from_months: int | None = None
    notice_act: str = "임대인에게 알려야 합니다"
    # Words that make a question another subject's though `asks` matches it (하자분쟁조정 is not the
    # lease law's 분쟁조정).
    unless: re.Pattern[str] | None = None
    # What a word means ("반전세가 뭐예요?"): asked alone, nothing else is asked.
    defines: bool = False

    def answers(self, question: str) -> re.Match[str] | None:
        if self.unless is not None and self.unless.search(question):
            return None
        return self.asks.search(question)

    def deadline(self, ends: date) -> str | None:
        """'만기가 2027-03-31이면 2027-01-31까지 …' for an answer with a notice period, '… 2026-09-30부터
        2027-01-31까지 …' for one with a window."""
        if self.notice_months is None:
            return None
        last = add_months(ends, -self.notice_months)
        since = self.notice_from_months
        first = f"{add_months(ends, -since).isoformat()}부터 " if since else ""
        return (
            f"만기가 {ends.isoformat()}이면 {first}{last.isoformat()}까지 {self.notice_act}"
            "(그날까지 닿아야 하니 여유 있게 보내고, 문자·내용증명처럼 남는 방법이 좋습니다)."
        )


@cache
def statute_answers(path: Path = RULES) -> tuple[StatuteAnswer, ...]:
    with path.open("rb") as source:
        book = tomllib.load(source)
    return tuple(
        StatuteAnswer(
            subject=row["subject"],
            asks=re.compile(row["asks"], re.IGNORECASE),
            says=row["says"],
            articles=tuple(_ref(ref) for ref in row["articles"]),
            threshold=Threshold(**row["threshold"]) if "threshold" in row else None,
            outside=row.get("outside"),
            general=row.get("general", False),
            notice_months=row.get("notice_months"),
            notice_from_months=row.get("notice_from_months"),
            notice_act=row.get("notice_act", StatuteAnswer.notice_act),
            unless=re.compile(row["unless"]) if "unless" in row else None,
            defines=row.get("defines", False),
        )
        for row in book["answer"]
    )


def answer_for(question: str, book: tuple[StatuteAnswer, ...] | None = None) -> StatuteAnswer | None:
    """The answer whose subject the question asks about: a general rule's first, then the one named first
    when several are."""
    answers = book or statute_answers()
    found = [(not a.general, m.start(), i) for i, a in enumerate(answers) if (m := a.answers(question))]
    return answers[min(found)[2]] if found else None


def answer_resting_on(article_id: str, book: tuple[StatuteAnswer, ...] | None = None) -> StatuteAnswer | None:
    """The answer that restates the article the index ranked first, when the question's words named no
    subject: the index finds the law well, and the answer says what that article means for the person."""
    answers = book or statute_answers()
    return next((a for a in answers if any(r.article_id == article_id for r in a.articles)), None)


def _ref(text: str) -> ArticleRef:
    article_id, _, paragraph = text.partition("#")
    return ArticleRef(article_id, int(paragraph or 0))
