"""The supervisor's composition root: typed settings in, a Supervisor with its ports out."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts import Event
from services.supervisor.decide import RetryPolicy
from services.supervisor.handlers import Supervisor
from services.supervisor.response import compose
from services.supervisor.run import RunState


class SupervisorSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JIPSA_SUPERVISOR_", extra="ignore")

    retry_first_delay_s: float = Field(default=1.0, ge=0)
    retry_max_delay_s: float = Field(default=30.0, ge=0)


async def respond_by_rules(state: RunState) -> Sequence[Event]:
    return [compose(state)]


def build_supervisor(settings: SupervisorSettings | None = None) -> Supervisor:
    settings = settings or SupervisorSettings()
    policy = RetryPolicy(settings.retry_first_delay_s, settings.retry_max_delay_s)
    return Supervisor(respond=respond_by_rules, policy=policy)
