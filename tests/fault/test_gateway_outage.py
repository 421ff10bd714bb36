"""The gateway while its Postgres is stopped: REST answers 503 with Retry-After (not a 500 after the
pool's half minute), a socket with a run in flight is told once, a frame sent meanwhile is refused with
nothing recorded, a new socket is closed with a reason, and the run goes on when Postgres is back."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import websockets

from services.gateway.feed.messages import STORE_UNAVAILABLE
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import (
    SEARCH,
    connected,
    first_of_type,
    new_session,
    projecting,
    script_for,
    serving,
)

pytestmark = pytest.mark.fault


async def test_a_store_outage_is_told_and_the_run_goes_on_after_it(owned, owned_store) -> None:
    async with (
        projecting(owned_store),
        serving(owned_store.pool, owned.nats.url, store_timeout_s=1.0) as gateway,
    ):
        session_id, token = await new_session(gateway)
        bearer = {"Authorization": f"Bearer {token}"}
        async with connected(gateway, session_id, token) as client:
            await client.send({"type": "query", "query": "강남구 아파트 전세 시세"})
            run_id = (await client.until_type("planning_start"))["run_id"]
            script, query = script_for(await first_of_type(owned_store, run_id, "QueryReceived"))
            plan = script.planned(query, SEARCH, strategy="sequential")
            started = script.started(SEARCH, plan)
            await owned_store.append([plan, started])
            await client.until_type("execution_start")

            await asyncio.to_thread(owned.postgres.stop)
            notice = await client.until_type("error", timeout=60)
            async with httpx.AsyncClient(base_url=gateway.http_url, timeout=30) as http:
                runs = await http.get(f"/api/sessions/{session_id}/runs", headers=bearer)
                created = await http.post("/api/sessions")
            await client.send({"type": "cancel", "run_id": run_id})
            refused = await client.until_type("error", timeout=60)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with websockets.connect(gateway.socket_url(session_id, token)) as late:
                    await late.recv()

            await asyncio.to_thread(owned.postgres.start)
            await wait_until(lambda: _answers(owned_store), timeout=60, what="the store answering again")
            found = script.completed(SEARCH, started)
            await owned_store.append([found, script.answered(found)])
            final = await client.until_type("final_response", timeout=60)

    assert notice == {
        "type": "error",
        "run_id": run_id,
        "position": None,
        "code": "store_unavailable",
        "message": STORE_UNAVAILABLE,
    }
    assert STORE_UNAVAILABLE == "일시적으로 저장소에 연결할 수 없어 잠시 후 이어갑니다"
    assert [m for m in client.received if m.get("code") == "store_unavailable"] == [notice], "told once"
    for refusal in (runs, created):
        assert (refusal.status_code, refusal.headers.get("Retry-After")) == (503, "5")
        assert refusal.json()["error"] == "store_unavailable"
    assert (refused["code"], refused["run_id"]) == ("unavailable", run_id)
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
        1013,
        "the event store is unreachable; reconnect shortly",
    )
    assert (final["run_id"], final["response"]["type"]) == (run_id, "answer")
    events = [r.envelope.event_type for r in await owned_store.read_correlation(run_id)]
    assert "RunCancelRequested" not in events and events[-1] == "ResponseReady"


async def _answers(store) -> bool:
    try:
        await store.head()
        return True
    except Exception:
        return False
