"""The document team's composition root: typed settings in, the statutes its contracts cite read once,
the team's subscription out."""

from __future__ import annotations

from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.values import Team
from services.document.common.citations import load_statutes
from services.document.handlers import document_work
from services.document.lease.checks import INCREASE_ARTICLE, RENEWAL_ARTICLE, TERM_ARTICLE
from services.document.sale.rules import sale_rules
from services.housing.clauses import clause_rules
from services.platform.service import Wiring, run_service
from services.platform.settings import REPO_ROOT, InfraSettings
from services.platform.team import team_subscription

CITABLE = (
    TERM_ARTICLE,
    RENEWAL_ARTICLE,
    INCREASE_ARTICLE,
    *(article for rule in clause_rules() for article in rule.article_ids),
    *sale_rules().article_ids,
)


class DocumentSettings(BaseSettings):
    """The document team's sources, each from `JIPSA_DOCUMENT_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_DOCUMENT_", extra="ignore")

    corpus_path: Path = Field(
        default=REPO_ROOT / "infra" / "seed" / "legal" / "corpus.jsonl",
        description="The statutes (one article per JSON line) whose articles a contract cites.",
    )


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    statutes = load_statutes(DocumentSettings().corpus_path, CITABLE, sale_rules().paragraphs)
    return Wiring([team_subscription(Team.DOCUMENT, document_work(pool, statutes))])


def main() -> None:
    run_service("document", build)
