"""Typed settings, read once at start-up. Each service adds its own prefix on top of these.

Every variable of every settings class, with its default and meaning, is listed in
infra/CONFIGURATION.md, generated from these classes by `python -m services.platform.config_reference`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]


class InfraSettings(BaseSettings):
    """Where the servers are. Unset URLs mean: start the embedded servers under `data_dir`."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    database_url: str | None = Field(
        default=None,
        alias="DATABASE_URL",
        description="The Postgres database (postgresql://user:password@host:port/name). Unset: `make run` "
        "starts an embedded Postgres under the data folder; other commands use the running `make run`'s.",
    )
    nats_url: str | None = Field(
        default=None,
        alias="NATS_URL",
        description="The NATS server with JetStream (nats://host:port), or a cluster's servers as a "
        "comma-separated list (nats://a:4222,nats://b:4222,nats://c:4222): a client goes to another when "
        "one is lost. Unset: as DATABASE_URL, the embedded one.",
    )
    namespace: str = Field(
        default="jipsa",
        alias="JIPSA_NAMESPACE",
        pattern=r"^[a-z][a-z0-9_]*$",
        description="Prefix of the JetStream stream (`<NAMESPACE>_EVENTS`), its subjects and durable "
        "consumers, so several systems (or tests) can share one NATS.",
    )
    data_dir: Path = Field(
        default=REPO_ROOT / ".data",
        alias="JIPSA_DATA_DIR",
        description="Where `make run` keeps the embedded servers' data, their URLs (urls.json) and caches.",
    )
    stream_replicas: int = Field(
        default=1,
        ge=1,
        le=5,
        alias="JIPSA_STREAM_REPLICAS",
        description="Copies of every event on the bus: 3 on a 3-node NATS cluster survives losing a node. "
        "An existing stream is changed to it when the publisher starts (the log says what changed).",
    )

    @property
    def stream_name(self) -> str:
        return stream_name_for(self.namespace)


def stream_name_for(namespace: str) -> str:
    """The JetStream stream of a namespace's events."""
    return f"{namespace.upper()}_EVENTS"


class ResolvedInfra(InfraSettings):
    """`InfraSettings` once the servers are known (services/platform/runtime.py): both URLs set, so
    what connects is handed a `str`. Made from an `InfraSettings` by `of`, never read on its own."""

    database_url: str = Field(alias="DATABASE_URL", description="The Postgres database in use.")
    nats_url: str = Field(alias="NATS_URL", description="The NATS server in use.")

    @classmethod
    def of(cls, settings: InfraSettings, database_url: str, nats_url: str) -> ResolvedInfra:
        # Constructed, not validated: the settings were validated when read, and what the env set
        # explicitly (model_fields_set) must stay what it was.
        return cls.model_construct(
            _fields_set=settings.model_fields_set | {"database_url", "nats_url"},
            **{**dict(settings), "database_url": database_url, "nats_url": nats_url},
        )


class PoolSettings(BaseSettings):
    """The Postgres connection pool of each process (infra/CONFIGURATION.md's connection budget)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    min_size: int = Field(
        default=1,
        ge=0,
        alias="JIPSA_DB_POOL_MIN",
        description="Connections a process keeps open even when idle.",
    )
    max_size: int = Field(
        default=8,
        ge=1,
        alias="JIPSA_DB_POOL_MAX",
        description="Connections a process may open at most; past it, a request waits for one. A "
        "consumer handles a fetch batch of messages at once (infra/nats/jetstream.json), each in a "
        "transaction of its own, so a smaller pool makes messages queue, not fail.",
    )

    @model_validator(mode="after")
    def _min_within_max(self) -> PoolSettings:
        if self.min_size > self.max_size:
            raise ValueError("JIPSA_DB_POOL_MIN is above JIPSA_DB_POOL_MAX")
        return self
