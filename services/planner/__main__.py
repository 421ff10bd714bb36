"""`python -m services.planner`: plan every question (rules, or one LLM call when an endpoint is set)."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from services.planner.service import Planner
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, main
from services.platform.settings import InfraSettings


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    return Wiring([Planner(LlmClient(LlmSettings())).subscription()])


if __name__ == "__main__":
    main("planner", build)
