"""`python -m services.supervisor`: decide for every run, from its events and its deadlines."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, main
from services.platform.settings import InfraSettings
from services.supervisor.bootstrap import build_supervisor
from services.supervisor.timers import TimerLoop


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    supervisor = build_supervisor(llm=LlmClient(LlmSettings()))
    return Wiring(supervisor.subscriptions(), loops=[TimerLoop(pool, supervisor).run])


if __name__ == "__main__":
    main("supervisor", build)
