"""Lease clauses against the tenant (불리한 조항·무효 특약): one table (infra/seed/legal/clauses.toml).

The analysis reviews a pasted contract sentence by sentence and the document team checks the 특약 of a
lease it writes; both ask here, so a clause one of them flags the other flags too, for the same reason and
on the same article.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, get_args

from services.housing.amounts import percents
from services.housing.dates import clause_term_months

RULES = Path(__file__).resolve().parents[2] / "infra" / "seed" / "legal" / "clauses.toml"
MANDATORY_ARTICLE = "주택임대차보호법/제10조"  # 임차인에게 불리한 약정은 효력이 없다

Severity = Literal["high", "medium", "low"]


@dataclass(frozen=True)
class ClauseRule:
    """One kind of clause against the tenant: how it reads, how serious it is, the article it conflicts
    with (a corpus id, None when it rests on none of the corpus), whether 제10조 makes it void, why, and
    the clause to write instead."""

    code: str
    title: str
    severity: Severity
    article_id: str | None
    void: bool
    reason: str
    suggestion: str
    pattern: re.Pattern[str] | None = None
    percent_when: re.Pattern[str] | None = None
    percent_over: float | None = None
    months_under: int | None = None

    @property
    def article_ids(self) -> tuple[str, ...]:
        """The articles to cite: the rule's own, and 제10조 for a void clause."""
        ids = (self.article_id, MANDATORY_ARTICLE if self.void else None)
        return tuple(dict.fromkeys(a for a in ids if a))

    def flags(self, clause: str) -> bool:
        if self.pattern and self.pattern.search(clause):
            return True
        if self.percent_when and self.percent_over is not None and self.percent_when.search(clause):
            if any(p > self.percent_over for p in percents(clause)):
                return True
        if self.months_under is None:
            return False
        months = clause_term_months(clause)
        if not months:  # no term stated (or none of 0 months)
            return False
        return months < self.months_under


@cache
def clause_rules(path: Path = RULES) -> tuple[ClauseRule, ...]:
    with path.open("rb") as source:
        return tuple(_rule(row) for row in tomllib.load(source)["clause"])


def flagged_by(clause: str, rules: tuple[ClauseRule, ...] | None = None) -> list[ClauseRule]:
    """The rules one clause (a sentence, a 특약) breaks, in the table's order."""
    return [rule for rule in rules or clause_rules() if rule.flags(clause)]


def _rule(row: dict) -> ClauseRule:
    rule = ClauseRule(
        code=row["code"],
        title=row["title"],
        severity=row["severity"],
        article_id=row.get("article"),
        void=row["void"],
        reason=row["reason"],
        suggestion=row["suggestion"],
        pattern=_compiled(row.get("pattern")),
        percent_when=_compiled(row.get("percent_when")),
        percent_over=row.get("percent_over"),
        months_under=row.get("months_under"),
    )
    percent = rule.percent_when is not None and rule.percent_over is not None
    if rule.severity not in get_args(Severity) or not (rule.pattern or percent or rule.months_under):
        raise ValueError(f"clause rule {rule.code}: a severity of {get_args(Severity)} and a way to flag")
    return rule


def _compiled(pattern: str | None) -> re.Pattern[str] | None:
    return re.compile(pattern) if pattern else None
