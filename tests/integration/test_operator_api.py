"""The operator's API against real Postgres and NATS: no token configured, no page; a wrong token, 401; with
the token, runs in the store counted by outcome, steps by team, LLM calls by call point, the projections'
and a real durable consumer's lag, the slowest runs and a run's audit timeline."""

from __future__ import annotations

import uuid
from dataclasses import asdict

import httpx
import pytest

from contracts.telemetry import LlmCallRecorded
from services.platform.audit import timeline
from services.platform.bus import connect
from services.platform.consumer import Consumer, Subscription
from services.platform.eventstore import EventStore
from services.platform.publisher import Publisher
from services.platform.run_outcomes import OUTCOMES
from services.platform.settings import InfraSettings
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import projecting, serving
from tests.integration.test_projector import (
    Script,
    approved_with_edits_and_a_skip,
    cancelled_mid_step,
    failed_for_good_with_an_old_step_failed,
    guidance,
    multi_team_with_retry,
    rejected,
)
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration
TOKEN = "operator-secret-7f3a"
ROUTES = [
    ("GET", "/api/operator/overview"),
    ("GET", "/api/operator/runs/some-run/timeline"),
    ("POST", "/api/operator/dead-letters/1/redrive"),
]
# One run of each kind the page counts, as their services record them (tests/integration/test_projector.py).
SCRIPTS = {
    "answer": multi_team_with_retry,
    "guidance": guidance,
    "skipped": approved_with_edits_and_a_skip,
    "rejected": rejected,
    "cancelled": cancelled_mid_step,
    "failed_step": failed_for_good_with_an_old_step_failed,
}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_without_a_token_configured_neither_the_page_nor_its_api_exists(pool, server_urls: ServerUrls):
    async with (
        serving(pool, server_urls.nats_url) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url) as http,
    ):
        assert (await http.get("/operator")).status_code == 404
        for method, path in ROUTES:
            assert (await http.request(method, path, headers=bearer(TOKEN))).status_code == 404, path
        # nor its files, under its own path or the person's page's
        for path in ("/operator/static/operator.js", "/static/operator.js", "/static/operator.html"):
            assert (await http.get(path)).status_code == 404, path


async def test_a_missing_or_wrong_token_is_refused(pool, server_urls: ServerUrls) -> None:
    async with (
        serving(pool, server_urls.nats_url, operator_token=TOKEN) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url) as http,
    ):
        page = await http.get("/operator")
        assert (
            page.status_code == 200 and "운영자 토큰" in page.text
        )  # the page asks; it holds nothing secret
        script = await http.get("/operator/static/operator.js")
        assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
        assert (await http.get("/operator/static/../operator.py")).status_code == 404
        for method, path in ROUTES:
            for headers in (
                {},
                bearer("not-it"),
                bearer(TOKEN + "x"),
                {"Authorization": f"Basic {TOKEN}"},
                {"Authorization": "Bearer 운영자".encode()},  # not ASCII: still a plain 401
            ):
                refused = await http.request(method, path, headers=headers)
                assert refused.status_code == 401, (path, headers, refused.text)
                assert refused.headers["www-authenticate"] == "Bearer"
        assert (await http.get("/api/operator/overview", headers=bearer(TOKEN))).status_code == 200


async def test_the_overview_reads_the_runs_in_the_store_and_the_lag_of_projections_and_consumers(
    store: EventStore, pool, infra: InfraSettings
) -> None:
    session_id = f"s-{uuid.uuid4().hex[:8]}"
    runs = {kind: script(f"{kind}-{uuid.uuid4().hex[:6]}", session_id) for kind, script in SCRIPTS.items()}
    timed_out = Script(runs["guidance"].run_id, session_id).add(
        LlmCallRecorded(
            run_id=runs["guidance"].run_id,
            call_point="planning",
            prompt_name="planning",
            prompt_hash="0c1d2e3f4a5b6c7d",
            model="gpt-4o-mini",
            latency_ms=5000,
            outcome="timeout",
            fallback_used=True,
        )
    )
    # One event per append: each gets a recorded_at of its own, as the services' appends do.
    for envelope in [e for script in runs.values() for e in script.events] + [timed_out]:
        await store.append([envelope])
    await _a_consumer_with_the_questions_pending(pool, infra)

    async with (
        projecting(store),
        serving(pool, infra.nats_url, infra.namespace, operator_token=TOKEN) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url, headers=bearer(TOKEN)) as http,
    ):
        overview = await _projected_overview(http, len(runs))
        audited = (await http.get(f"/api/operator/runs/{runs['answer'].run_id}/timeline")).json()
        unknown = await http.get("/api/operator/runs/no-such-run/timeline")
        no_letter = await http.post("/api/operator/dead-letters/999999/redrive")

    assert overview["runs"]["counted"] == len(runs)
    assert sum(m["runs"] for m in overview["runs"]["per_minute"]) == len(runs)
    assert len(overview["runs"]["per_minute"]) == overview["minutes"] == 60
    expected = {"answer": 1, "guidance": 1, "answer with failed steps": 2, "rejected": 1, "cancelled": 1}
    assert overview["runs"]["by_outcome"] == {o: expected.get(o, 0) for o in OUTCOMES}

    steps = {s["team"]: s for s in overview["steps"]}
    # search: the retried step's two attempts, the edited legal step, the cancelled run's late answer, and
    # the last run's legal step and failed (v1) search step; analysis: one.
    assert {t: (s["steps"], s["failed"]) for t, s in steps.items()} == {"search": (6, 2), "analysis": (1, 0)}
    assert steps["search"]["p50_ms"] <= steps["search"]["p95_ms"]
    started, answered = [
        r.recorded_at
        for r in await store.read_correlation(runs["answer"].run_id)
        if r.envelope.event_type in ("StepStarted", "StepCompleted")
        and r.envelope.data["step_id"] == "analysis"
    ]
    waited_ms = (answered - started).total_seconds() * 1000
    assert steps["analysis"]["p50_ms"] == steps["analysis"]["p95_ms"] == pytest.approx(waited_ms, abs=0.001)

    llm = {c["call_point"]: (c["calls"], c["failures"], c["fallbacks"]) for c in overview["llm"]}
    assert llm == {
        "intent_analysis": (1, 0, 0),
        "market_insight": (1, 0, 1),  # rules mode: no endpoint, the fallback answered, nothing failed
        "planning": (1, 1, 1),
        "response_synthesis": (1, 0, 0),
    }

    lag = {c["name"]: c for c in overview["checkpoints"]}
    assert lag["projections"]["behind"] == 0 and lag["publisher"]["behind"] == 0
    assert overview["consumers"]["problem"] is None
    assert overview["consumers"]["list"] == [
        {"consumer": f"{infra.namespace}-operator-test", "pending": len(runs), "unacked": 0, "redelivered": 0}
    ]

    slowest = overview["slowest"]
    assert {r["run_id"] for r in slowest} == {s.run_id for s in runs.values()}
    assert [r["total_ms"] for r in slowest] == sorted((r["total_ms"] for r in slowest), reverse=True)
    assert {r["run_id"]: r["outcome"] for r in slowest}[runs["rejected"].run_id] == "rejected"

    # The timeline is `jipsa audit`'s, row for row.
    records = await store.read_correlation(runs["answer"].run_id)
    assert audited["events"] == [
        {**asdict(r), "occurred_at": r.occurred_at.isoformat()} for r in timeline(records)
    ]
    assert unknown.status_code == 404 and no_letter.status_code == 404


async def _a_consumer_with_the_questions_pending(pool, infra: InfraSettings) -> None:
    """A durable consumer of QueryReceived, bound as a service's is, with the relay's messages unread."""

    async def never_called(ctx) -> None:
        raise AssertionError("this consumer is only looked at")

    nc = await connect(infra.nats_url, "operator-test")
    try:
        await Consumer(Subscription("operator-test", "QueryReceived", never_called), pool, nc, infra).ensure()
        await Publisher(pool, nc, infra).publish_pending()
    finally:
        await nc.drain()


async def _projected_overview(http: httpx.AsyncClient, runs: int) -> dict:
    """The overview once the projector has folded every run (the page reads the projection's runs)."""
    seen: list[dict] = []

    async def caught_up() -> bool:
        seen[:] = [(await http.get("/api/operator/overview")).raise_for_status().json()]
        projections = next(c for c in seen[0]["checkpoints"] if c["name"] == "projections")
        return seen[0]["runs"]["counted"] == runs and projections["behind"] == 0

    await wait_until(caught_up, timeout=20, what="the projections to reach the head of the log")
    return seen[0]
