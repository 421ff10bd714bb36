"""The planner's composition root: the LLM client from its typed settings, the handler's subscription."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from services.planner.handlers import Planner
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    return Wiring([Planner(LlmClient(LlmSettings())).subscription()])


def main() -> None:
    run_service("planner", build)
