"""Typed settings, read once at start-up. Each service adds its own prefix on top of these."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]


class InfraSettings(BaseSettings):
    """Where the servers are. Unset URLs mean: start the embedded servers under `data_dir`."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    nats_url: str | None = Field(default=None, alias="NATS_URL")
    namespace: str = Field(default="jipsa", alias="JIPSA_NAMESPACE", pattern=r"^[a-z][a-z0-9_]*$")
    data_dir: Path = Field(default=REPO_ROOT / ".data", alias="JIPSA_DATA_DIR")
    stream_replicas: int = Field(default=1, ge=1, le=5, alias="JIPSA_STREAM_REPLICAS")

    @property
    def stream_name(self) -> str:
        return f"{self.namespace.upper()}_EVENTS"
