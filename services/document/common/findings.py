"""What a review finds (계약서 검토), the same for every contract: a `Finding` is an `error` that blocks
the document and is asked of the person again (its `field`), or a `warning` or `note` shown with the
finished contract; `Findings` is a review's findings and the protective 특약 it suggests, which each
contract's review extends with its settled fields (lease/checks.py `Review`, sale/checks.py `SaleReview`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Finding(BaseModel):
    model_config = ConfigDict(frozen=True)

    severity: Literal["error", "warning", "note"]
    message: str
    field: str | None = None  # for an error: the field to ask again
    article_ids: tuple[str, ...] = ()


class Findings(BaseModel):
    """What a review found and the protective 특약 it suggests; a contract's review adds its fields."""

    model_config = ConfigDict(frozen=True)

    findings: list[Finding]
    suggested_terms: list[str]

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def article_ids(self) -> list[str]:
        return list(dict.fromkeys(a for f in self.findings for a in f.article_ids))


def error(field: str, message: str) -> Finding:
    """A finding that blocks the document: `field` is asked of the person again."""
    return Finding(severity="error", message=message, field=field)


def note(message: str) -> Finding:
    return Finding(severity="note", message=message)
