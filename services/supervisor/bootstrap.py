"""The supervisor's composition root: typed settings in, the Supervisor with its ports, its timer loop
and its watchdog out."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.platform.llm import LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings
from services.supervisor.decide import RetryPolicy
from services.supervisor.ending import DEFAULT_LIMITS, RunLimits
from services.supervisor.handlers import Supervisor
from services.supervisor.synthesis import respond_by_rules, respond_with
from services.supervisor.timers import TimerLoop
from services.supervisor.watchdog import Watchdog


class SupervisorSettings(BaseSettings):
    """The supervisor's settings, each from `JIPSA_SUPERVISOR_<NAME>`: retries and how every run ends."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_SUPERVISOR_", extra="ignore")

    retry_first_delay_s: float = Field(
        default=1.0, ge=0, description="Backoff before a failed step's second attempt; it doubles after."
    )
    retry_max_delay_s: float = Field(
        default=30.0, ge=0, description="The longest backoff between a failed step's attempts."
    )
    stall_after_s: float = Field(
        default=DEFAULT_LIMITS.stall_after_s,
        gt=0,
        description="A run with no event this long past its own deadlines (a step's timeout, a retry's "
        "backoff) ends with RunFailed `stalled`; planning has no deadline of its own, so a run still "
        "unplanned after this long ends too. Silence is counted only while the watchdog reaches the "
        "store, so a Postgres outage is survived; keep it above the longest NATS outage (or planning "
        "or response LLM call, with its retries) that runs should outlive.",
    )
    person_wait_s: float = Field(
        default=DEFAULT_LIMITS.person_wait_s,
        gt=0,
        description="A run waiting for the person (plan approval, a step's questions) ends with "
        "RunFailed `expired` after this long without an answer (a day).",
    )
    max_input_rounds: int = Field(
        default=DEFAULT_LIMITS.max_input_rounds,
        ge=1,
        description="How many times a run may ask the person; a step asking once more ends the run "
        "with RunFailed `too_many_input_rounds`.",
    )
    watchdog_every_s: float = Field(
        default=5.0, gt=0, description="How often the watchdog looks for runs to end (watchdog.py)."
    )

    def limits(self) -> RunLimits:
        return RunLimits(self.stall_after_s, self.person_wait_s, self.max_input_rounds)


def build_supervisor(settings: SupervisorSettings | None = None, llm: LlmClient | None = None) -> Supervisor:
    settings = settings or SupervisorSettings()
    policy = RetryPolicy(settings.retry_first_delay_s, settings.retry_max_delay_s)
    respond = respond_with(llm) if llm is not None else respond_by_rules
    return Supervisor(respond=respond, policy=policy, limits=settings.limits())


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    own = SupervisorSettings()
    supervisor = build_supervisor(own, llm=LlmClient(LlmSettings()))
    watchdog = Watchdog(pool, own.limits(), supervisor.clock, every_s=own.watchdog_every_s)
    return Wiring(supervisor.subscriptions(), loops=[TimerLoop(pool, supervisor).run, watchdog.run])


def main() -> None:
    run_service("supervisor", build)
