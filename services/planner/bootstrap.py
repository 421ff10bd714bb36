"""The planner's composition root: the LLM client from its typed settings, the handler's subscription."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from services.planner.handlers import Planner
from services.planner.plan_rules import plan_by_rules
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings

# A question whose rules touch what planning builds on first use (the statutes' headings, the gazetteer,
# the rule books' patterns): planned once at start, the first person's question does not pay for it
# (about 0.3 s) and the service's heap is frozen with it (heap.py).
WARM_UP_QUESTION = "강남구 아파트 전세 시세와 계약갱신 요구권"


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    plan_by_rules(WARM_UP_QUESTION)
    return Wiring([Planner(LlmClient(LlmSettings())).subscription()])


def main() -> None:
    run_service("planner", build)
