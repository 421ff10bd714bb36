"""Rate limits: a token bucket per key (a session for its questions and for its other requests about
runs, a client address for new sessions).

A question starts a run that costs store appends, team work and possibly LLM calls, an answer or a
skip reads the run and appends to it, and a session is a row in Postgres, so all are rationed. A
bucket holds up to `per_minute` tokens and refills at `per_minute` a minute: a person asking a few
questions in a row (a burst) is never refused, a script asking hundreds is. A refusal says how long
until the next token (HTTP `Retry-After`).

The buckets live in this process only: with several gateway replicas each rations on its own, which
multiplies the allowance by the number of replicas but needs no shared store on the hot path.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.datastructures import State

from services.gateway.settings import GatewaySettings

Clock = Callable[[], float]
MAX_KEYS = 10_000


@dataclass
class TokenBucket:
    capacity: float
    refill_per_s: float
    tokens: float
    updated_at: float

    def take(self, now: float) -> float:
        """Take a token: 0.0 when there was one, else the seconds until there is one (nothing taken)."""
        elapsed = max(0.0, now - self.updated_at)  # a clock that steps back refills nothing
        self.tokens = min(self.capacity, self.tokens + elapsed * self.refill_per_s)
        self.updated_at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.refill_per_s


class RateLimit:
    """At most `per_minute` takes a minute per key, in bursts of up to `per_minute`; 0 means no limit.

    The keys are bounded: past `max_keys`, the least recently used key's bucket is forgotten. It is the
    one most likely full again anyway, and the memory of a flood of keys stays bounded.
    """

    def __init__(self, per_minute: int, *, clock: Clock = time.monotonic, max_keys: int = MAX_KEYS) -> None:
        self.per_minute, self.clock, self.max_keys = per_minute, clock, max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str) -> float:
        """0.0 if `key` may go on now, else the seconds it must wait."""
        if self.per_minute <= 0:
            return 0.0
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(
                self.per_minute, self.per_minute / 60, self.per_minute, now
            )
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(now)

    def __len__(self) -> int:
        return len(self._buckets)


def retry_after(wait_s: float) -> int:
    """Whole seconds for `Retry-After`, never 0 (0 would invite an immediate retry that is refused)."""
    return max(1, math.ceil(wait_s))


@dataclass(frozen=True)
class GatewayLimits:
    queries: RateLimit  # per session: `query` frames
    sessions: RateLimit  # per client address: POST /api/sessions
    frames: RateLimit  # per session: the other frames that act on a run, and REST cancels

    @classmethod
    def from_settings(cls, settings: GatewaySettings, clock: Clock = time.monotonic) -> GatewayLimits:
        return cls(
            queries=RateLimit(settings.queries_per_minute, clock=clock),
            sessions=RateLimit(settings.sessions_per_minute, clock=clock),
            frames=RateLimit(settings.frames_per_minute, clock=clock),
        )


def limits_of(state: State, settings: GatewaySettings) -> GatewayLimits:
    """The app's limits, made on first use and kept on `app.state`: one set per app, as its lifetime."""
    limits = getattr(state, "limits", None)
    if limits is None:
        limits = state.limits = GatewayLimits.from_settings(settings)
    return limits
