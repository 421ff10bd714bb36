"""The rule book: the dated rules the analysis applies (infra/seed/rules/*.toml), legal caps, the base rate,
risk bands, read and validated at once. Facts with an effective date and a source, never constants in
code; each file's model is the module of this package named after it (lease.toml: rules/lease.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from services.analysis.rules.brokerage import BrokerageRules
from services.analysis.rules.jeonse_risk import JeonseRiskRules
from services.analysis.rules.lease import LeaseRules
from services.analysis.rules.lending import LendingRules
from services.analysis.rules.regions import RegionRules
from services.analysis.rules.small_deposit import SmallDepositRules
from services.analysis.rules.tax import TaxRules
from services.platform.settings import REPO_ROOT

RULES_DIR = REPO_ROOT / "infra" / "seed" / "rules"
CORPUS = REPO_ROOT / "infra" / "seed" / "legal" / "corpus.jsonl"


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RuleBook(_Rule):
    lease: LeaseRules
    jeonse_risk: JeonseRiskRules
    lending: LendingRules
    tax: TaxRules
    regions: RegionRules
    small_deposit: SmallDepositRules
    brokerage: BrokerageRules

    @classmethod
    def load(cls, directory: Path = RULES_DIR) -> RuleBook:
        def read(name: str) -> dict[str, Any]:
            return tomllib.loads((directory / f"{name}.toml").read_text(encoding="utf-8"))

        return cls.model_validate({name: read(name) for name in cls.model_fields})
