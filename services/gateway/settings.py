"""The gateway's typed settings, read once at start-up (env prefix `JIPSA_GATEWAY_`, port `JIPSA_PORT`)."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class GatewaySettings(BaseSettings):
    """The gateway's address, limits and timeouts, each from `JIPSA_GATEWAY_<NAME>` (port: `JIPSA_PORT`)."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_GATEWAY_", extra="ignore", populate_by_name=True)

    host: str = Field(default="127.0.0.1", description="The address the gateway listens on.")
    port: int = Field(default=8000, ge=0, le=65535, alias="JIPSA_PORT", description="The gateway's port.")
    max_body_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        description="The largest REST body: one is a few hundred bytes; anything far larger is a mistake "
        "or an attack.",
    )
    max_frame_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        description="A WebSocket frame over this gets an `error` and the socket lives on; uvicorn's own "
        "cap (4 times this, which closes the socket) sits above it, so the polite refusal is what a "
        "client normally meets.",
    )
    max_pending_messages: int = Field(
        default=2000,
        ge=10,
        description="Messages waiting for one slow socket; past this the socket is closed (it can "
        "reconnect and resume) rather than let one reader hold the others' memory.",
    )
    # Rate limits (limits.py), in bursts of up to the same number; 0 turns one off (a benchmark's gateway).
    queries_per_minute: int = Field(
        default=30,
        ge=0,
        description="Questions per session, in bursts of as many (0: no limit): a question starts a "
        "run, with store appends, team work and LLM calls.",
    )
    sessions_per_minute: int = Field(
        default=20,
        ge=0,
        description="New sessions per client address, as uvicorn reports it (behind a trusted proxy "
        "too); 0: no limit.",
    )
    frames_per_minute: int = Field(
        default=60,
        ge=0,
        description="The frames that act on a run (interrupt_response, input_response, todo_skip, "
        "cancel, resume) and REST cancels, per session: each reads the run and may append to it; "
        "0: no limit.",
    )
    store_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="How long a request waits for a Postgres connection: with the store unreachable the "
        "pool has none, and the person is told (503 with Retry-After, an `error` frame) rather than "
        "kept waiting.",
    )
    body_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="A request body must arrive within this (a Content-Length larger than what is sent "
        "would hold the connection for ever); past it the request is answered 408.",
    )
    follower_batch_size: int = Field(
        default=500, ge=1, description="Events the log follower reads per query when catching up."
    )
    poll_interval_s: float = Field(
        default=1.0,
        gt=0,
        description="The follower wakes on the projector's commit notices; this poll only covers a lost "
        "notice.",
    )
    health_timeout_s: float = Field(
        default=2.0, gt=0, description="How long /readyz waits for each of its checks (Postgres, NATS)."
    )
    operator_token: SecretStr | None = Field(
        default=None,
        alias="JIPSA_OPERATOR_TOKEN",
        description=(
            "The bearer token of the operator's page (/operator) and its API. Unset: the page and its API"
            " answer 404; set: a request without it, or with another, answers 401."
        ),
    )

    @property
    def ws_max_size(self) -> int:
        return 4 * self.max_frame_bytes
