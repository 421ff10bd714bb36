"""The analysis team's composition root: its library (rules, statutes, policies) read once, the LLM
client from its typed settings, the team's subscription."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from contracts.values import Team
from services.analysis.handlers import analysis_work
from services.analysis.rules.library import Library
from services.analysis.rules.policies import PolicyBook
from services.analysis.rules.rulebook import CORPUS, RuleBook
from services.analysis.rules.statutes import StatuteBook
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings
from services.platform.team import team_subscription

CITED_LAWS = {"주택임대차보호법", "주택임대차보호법 시행령", "공인중개사법", "공인중개사법 시행규칙"}


def load_library() -> Library:
    return Library(
        rules=RuleBook.load(), statutes=StatuteBook.load(CORPUS, laws=CITED_LAWS), policies=PolicyBook.load()
    )


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    """The rules and statutes are read once at start-up; a broken data file stops the service here."""
    return Wiring([team_subscription(Team.ANALYSIS, analysis_work(load_library(), LlmClient(LlmSettings())))])


def main() -> None:
    run_service("analysis", build)
