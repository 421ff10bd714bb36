"""The supervisor's composition root: typed settings in, a Supervisor with its ports out."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts import Event
from services.platform.llm import LlmClient
from services.supervisor.decide import RetryPolicy
from services.supervisor.handlers import Respond, Supervisor
from services.supervisor.response import compose, grounded, synthesis_inputs
from services.supervisor.run import RunState


class SupervisorSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JIPSA_SUPERVISOR_", extra="ignore")

    retry_first_delay_s: float = Field(default=1.0, ge=0)
    retry_max_delay_s: float = Field(default=30.0, ge=0)


async def respond_by_rules(state: RunState) -> Sequence[Event]:
    return [compose(state)]


def respond_with(llm: LlmClient) -> Respond:
    """The rules answer, its prose rewritten by the `response_synthesis` call when it stays grounded."""

    async def respond(state: RunState) -> Sequence[Event]:
        by_rules = compose(state)
        if by_rules.response_type != "answer":
            return [by_rules]
        result = await llm.text(
            "response_synthesis",
            synthesis_inputs(state),
            run_id=state.run_id,
            fallback=lambda: by_rules.answer,
        )
        if result.used_llm and not grounded(result.value, state):
            record = result.record.model_copy(
                update={"outcome": "invalid_output", "fallback_used": True, "error": "ungrounded citation"}
            )
            return [record, by_rules]
        return [result.record, by_rules.model_copy(update={"answer": result.value})]

    return respond


def build_supervisor(settings: SupervisorSettings | None = None, llm: LlmClient | None = None) -> Supervisor:
    settings = settings or SupervisorSettings()
    policy = RetryPolicy(settings.retry_first_delay_s, settings.retry_max_delay_s)
    respond = respond_with(llm) if llm is not None else respond_by_rules
    return Supervisor(respond=respond, policy=policy)
