"""The chaos script in small: a dozen runs through the real system, as separate processes under procman,
while services are SIGKILLed and Postgres and NATS restarted (NATS wiped). `make chaos` runs the full one.
It fails on any run without a final event, any error answer or RunFailed, any projection behind or
disagreeing with the store (tests/chaos/run.py's verdict)."""

from __future__ import annotations

import pytest

from tests.chaos.run import chaos, parse

pytestmark = [pytest.mark.fault, pytest.mark.timeout(300)]


async def test_runs_finish_once_and_are_projected_through_kills_and_server_restarts(capsys) -> None:
    code = await chaos(
        parse(["--runs", "10", "--sessions", "4", "--every", "2", "4", "--seed", "8", "--min-faults", "3"])
    )
    report = capsys.readouterr().out
    assert code == 0, report
    assert "no violation" in report
    assert "runs by outcome" in report and "interrupted runs: " in report
    assert all(f" {kind} " in report for kind in ("kill", "postgres", "nats")), "a kind of fault never struck"
