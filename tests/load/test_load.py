"""The load script in small: five people at once, two questions each, through the real system; no errors."""

from __future__ import annotations

import pytest

from tests.load.run import load, parse

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]


async def test_concurrent_sessions_are_all_answered_without_an_error(capsys) -> None:
    code = await load(parse(["--sessions", "5", "--questions", "2", "--seed", "3"]))
    report = capsys.readouterr().out
    assert code == 0, report
    assert "errors: 0" in report and "runs: 10 " in report
    cpu = report.split("CPU per run (10 runs", 1)[1]
    assert all(name in cpu for name in ("gateway", "planner", "supervisor", "publisher", "postgres", "nats"))
