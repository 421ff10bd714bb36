"""The base of every value model: immutable, and strict about unknown keys. Apart from values.py so that
values (Intent) can hold the reading (entities.py) that is built on it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
