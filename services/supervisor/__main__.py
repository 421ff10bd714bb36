"""`python -m services.supervisor`: decide for every run, from its events and its deadlines, and end
every run that cannot go on (the watchdog)."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, main
from services.platform.settings import InfraSettings
from services.supervisor.bootstrap import SupervisorSettings, build_supervisor
from services.supervisor.timers import TimerLoop
from services.supervisor.watchdog import Watchdog


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    own = SupervisorSettings()
    supervisor = build_supervisor(own, llm=LlmClient(LlmSettings()))
    watchdog = Watchdog(pool, own.limits(), supervisor.clock, every_s=own.watchdog_every_s)
    return Wiring(supervisor.subscriptions(), loops=[TimerLoop(pool, supervisor).run, watchdog.run])


if __name__ == "__main__":
    main("supervisor", build)
