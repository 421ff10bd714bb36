"""The library: everything an analysis tool reads besides the case, the dated rules, the statute text it
cites and the policy programmes, read once at start-up (bootstrap.py)."""

from __future__ import annotations

from dataclasses import dataclass

from services.analysis.rules.policies import PolicyBook
from services.analysis.rules.rulebook import RuleBook
from services.analysis.rules.statutes import StatuteBook


@dataclass(frozen=True)
class Library:
    """What the tools read besides the case: the dated rules, the statute text and the policy programmes."""

    rules: RuleBook
    statutes: StatuteBook
    policies: PolicyBook
