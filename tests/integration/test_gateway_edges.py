"""The gateway's edges against a real uvicorn: a handshake refused with a reason the client can read,
refusals that echo only a bounded part of what was sent, and a request body that never arrives."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from psycopg_pool import AsyncConnectionPool

from services.platform.eventstore import EventStore
from tests.integration.gateway_helpers import Gateway, connected, new_session, projecting, serving
from tests.integration.test_gateway_frames import replies_to
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("after_position=abc", "after_position must be a whole number >= 0"),
        ("after_position=-1", "after_position must be a whole number >= 0"),
        ("after_position=1e3", "after_position must be a whole number >= 0"),
        ("after_position=" + "9" * 40, "after_position must be a whole number >= 0"),
        ("", "invalid session token"),
    ],
)
async def test_a_refused_handshake_says_why(gateway: Gateway, query: str, reason: str) -> None:
    session_id, token = await new_session(gateway)
    token_part = f"token={token}&" if query else ""
    url = f"{gateway.ws_url}/ws/{session_id}?{token_part}{query}"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        async with websockets.connect(url) as refused:
            await refused.recv()
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, reason)


async def test_refusals_echo_only_a_bounded_part_of_what_was_sent(gateway: Gateway) -> None:
    session_id, token = await new_session(gateway)
    long_id = "x" * 10_000
    async with httpx.AsyncClient(
        base_url=gateway.http_url, headers={"Authorization": f"Bearer {token}"}
    ) as http:
        missing = await http.get(f"/api/runs/{long_id}")
        keyed = await http.post("/api/sessions", content=json.dumps({"k" * 10_000: 1}))
        cancel = await http.post(f"/api/sessions/{session_id}/runs/{long_id}/cancel")
    assert missing.status_code == 404 and len(missing.text) < 200 and "x" * 41 not in missing.text
    assert keyed.status_code == 422 and len(keyed.text) < 500 and "k" * 65 not in keyed.text
    assert cancel.status_code == 404 and len(cancel.text) < 200
    async with connected(gateway, session_id, token) as client:
        await client.send({"type": "cancel", "run_id": "r" * 100})
        await client.send({"type": "resume", "after_position": 10**4000})
        refused = [m for m in await replies_to(client) if m["type"] == "error"]
    assert [m["code"] for m in refused] == ["unknown_run", "invalid_position"]
    assert all(len(m["message"]) < 150 for m in refused), refused


async def test_a_body_that_never_arrives_is_answered_408(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> None:
    """Content-Length says 100 and 10 bytes come: the request is answered and the connection closed,
    instead of held open for ever."""
    async with projecting(store), serving(pool, server_urls.nats_url, body_timeout_s=0.5) as gateway:
        address = urlsplit(gateway.http_url)
        reader, writer = await asyncio.open_connection(address.hostname, address.port)
        head = "POST /api/sessions HTTP/1.1\r\nHost: jipsa\r\nContent-Type: application/json\r\n"
        writer.write(f'{head}Content-Length: 100\r\n\r\n{{"title": '.encode())
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)  # everything until the server closes
        writer.close()
        async with httpx.AsyncClient(base_url=gateway.http_url) as http:
            whole = await http.post("/api/sessions", json={"title": "제때 온 본문"})
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["detail"].startswith("request body not received")
    assert whole.status_code == 201
