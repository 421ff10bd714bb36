"""The gateway's token buckets, on a clock the test moves."""

from __future__ import annotations

import pytest

from services.gateway.limits import GatewayLimits, RateLimit, retry_after
from services.gateway.settings import GatewaySettings

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_up_to_the_limit_then_a_refusal_with_the_wait() -> None:
    clock = Clock()
    limit = RateLimit(30, clock=clock)
    assert [limit.take("s") for _ in range(30)] == [0.0] * 30
    assert limit.take("s") == pytest.approx(2.0)  # 30 a minute: one token every 2 s
    clock.now += 1.5
    assert limit.take("s") == pytest.approx(0.5)  # a refusal takes nothing
    clock.now += 0.5
    assert limit.take("s") == 0.0
    assert limit.take("s") > 0


def test_refills_to_the_capacity_and_no_further() -> None:
    clock = Clock()
    limit = RateLimit(6, clock=clock)
    for _ in range(6):
        limit.take("s")
    clock.now += 3600  # an hour idle refills six tokens, not six hundred
    assert [limit.take("s") == 0.0 for _ in range(7)] == [True] * 6 + [False]


def test_keys_are_rationed_apart() -> None:
    limit = RateLimit(1, clock=Clock())
    assert limit.take("a") == 0.0 and limit.take("b") == 0.0
    assert limit.take("a") > 0 and limit.take("b") > 0


def test_zero_is_no_limit() -> None:
    limit = RateLimit(0, clock=Clock())
    assert all(limit.take("s") == 0.0 for _ in range(1000))
    assert len(limit) == 0


def test_a_clock_stepping_back_refills_nothing() -> None:
    clock = Clock()
    limit = RateLimit(1, clock=clock)
    limit.take("s")
    clock.now -= 600
    assert limit.take("s") == pytest.approx(60.0)


def test_the_keys_are_bounded_and_the_least_recently_used_is_forgotten() -> None:
    limit = RateLimit(1, clock=Clock(), max_keys=3)
    for key in "abc":
        limit.take(key)
    limit.take("a")  # refused, and now the most recently used
    limit.take("d")
    assert len(limit) == 3
    assert limit.take("b") == 0.0  # forgotten: a fresh bucket
    assert limit.take("a") > 0  # remembered


def test_retry_after_is_whole_seconds_and_never_zero() -> None:
    assert [retry_after(s) for s in (0.01, 1.0, 1.2, 59.9)] == [1, 1, 2, 60]


def test_limits_from_settings() -> None:
    clock = Clock()
    settings = GatewaySettings(queries_per_minute=2, sessions_per_minute=0)
    limits = GatewayLimits.from_settings(settings, clock)
    assert [limits.queries.take("s") == 0.0 for _ in range(3)] == [True, True, False]
    assert all(limits.sessions.take("127.0.0.1") == 0.0 for _ in range(100))


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIPSA_GATEWAY_QUERIES_PER_MINUTE", raising=False)
    monkeypatch.delenv("JIPSA_GATEWAY_SESSIONS_PER_MINUTE", raising=False)
    defaults = GatewaySettings()
    assert (defaults.queries_per_minute, defaults.sessions_per_minute) == (30, 20)
    monkeypatch.setenv("JIPSA_GATEWAY_QUERIES_PER_MINUTE", "5")
    monkeypatch.setenv("JIPSA_GATEWAY_SESSIONS_PER_MINUTE", "0")
    settings = GatewaySettings()
    assert (settings.queries_per_minute, settings.sessions_per_minute) == (5, 0)
