"""A person's question through the whole system: the gateway, the planner, the supervisor and the three
teams as real consumers on real NATS and Postgres, asked with the real `jipsa ask --json` client.

The four paths of DESIGN.md section 2: a greeting (no team runs), one team, several teams where analysis
is fed by search's results, and a document whose missing fields are asked for, never invented.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contracts.values import Team
from services.analysis.service import build as analysis_build
from services.document.service import build as document_build
from services.planner.__main__ import build as planner_build
from services.platform.bus import ConsumerPolicy, connect
from services.platform.publisher import Publisher
from services.platform.service import Wiring, serve
from services.platform.team import team_subscription
from services.search.__main__ import load_legal_index, seed_if_empty
from services.search.service import search_work
from services.search.tools import SearchContext, default_tools
from services.supervisor.__main__ import build as supervisor_build
from tests.integration.gateway_helpers import Gateway, projecting, serving

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], ack_wait_s=10)
_LEGAL_INDEX: list = []  # analysing the corpus takes seconds: once per test session


async def search_build(pool, settings) -> Wiring:
    await seed_if_empty(pool)  # each test has a database of its own
    if not _LEGAL_INDEX:
        _LEGAL_INDEX.append(await load_legal_index(pool))
    ctx = SearchContext(pool=pool, legal=_LEGAL_INDEX[0])
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))])


@contextlib.asynccontextmanager
async def jipsa(store, infra) -> AsyncIterator[Gateway]:
    async def relay(pool, _settings) -> Wiring:
        nc = await connect(infra.nats_url, "relay")
        return Wiring([], loops=[Publisher(pool, nc.jetstream(), infra).run])

    builds = [relay, planner_build, supervisor_build, search_build, analysis_build, document_build]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(serve(f"svc{i}", b, infra, stop, FAST)) for i, b in enumerate(builds)]
    try:
        async with projecting(store), serving(store.pool, infra.nats_url) as gateway:
            yield gateway
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)


async def ask(gateway: Gateway, query: str) -> tuple[int, dict]:
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "jipsa"),  # the console script `make install` puts in the venv
        "ask",
        "--json",
        "--url",
        gateway.http_url,
        "--timeout",
        "120",
        query,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert out, err.decode()
    return process.returncode, json.loads(out)


async def test_the_four_paths_of_a_run(store, infra) -> None:
    async with jipsa(store, infra) as gateway:
        greeting = await ask(gateway, "안녕")
        legal = await ask(gateway, "전세금 5% 인상 제한이 언제까지인가요?")
        several = await ask(gateway, "강남구 아파트 전세 시세와 위험도 분석해줘")
        document = await ask(gateway, "임대차계약서 작성해줘")

    code, run = greeting
    assert code == 0 and run["intent"]["type"] == "IRRELEVANT"
    assert run["plan"]["steps"] == [] and run["response"]["type"] == "guidance"

    code, run = legal
    assert code == 0 and run["intent"]["type"] == "LEGAL_CONSULT"
    assert "search" in {s["team"] for s in run["plan"]["steps"]}
    assert all(s["status"] == "completed" for s in run["plan"]["steps"])
    assert any(c["article_id"].startswith("주택임대차보호법") for c in run["response"]["citations"])

    code, run = several
    teams = {s["team"]: s for s in run["plan"]["steps"]}
    assert code == 0 and set(teams) >= {"search", "analysis"}
    assert teams["analysis"]["depends_on"] == [teams["search"]["step_id"]]
    assert all(s["status"] == "completed" for s in run["plan"]["steps"])
    assert run["response"]["listings"] or run["response"]["figures"]

    code, run = document
    assert code == 0 and run["intent"]["type"] == "CONTRACT_CREATION"
    assert [s["team"] for s in run["plan"]["steps"]] == ["document"]
    assert run["response"]["documents"] == []  # nothing is invented: the fields are asked for
    assert "보증금" in run["response"]["answer"]
