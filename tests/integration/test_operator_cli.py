"""The operator's commands against real servers: `jipsa replay` and `jipsa dlq`."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from services.platform.cli import app
from services.platform.consumer import Consumer, Subscription
from services.platform.deadletters import list_dead_letters
from services.platform.settings import InfraSettings
from tests.integration.bus_helpers import query_event, wait_until

pytestmark = pytest.mark.integration


def jipsa(infra: InfraSettings, *args: str):
    env = {"DATABASE_URL": infra.database_url, "NATS_URL": infra.nats_url, "JIPSA_NAMESPACE": infra.namespace}
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.output


async def test_replay_refeeds_the_bus_from_a_position(store, nc, infra) -> None:
    await store.append([query_event(f"r{i}") for i in range(6)])
    output = await _in_thread(jipsa, infra, "replay", "--from", "3")
    assert "re-fed 4 events" in output
    info = await nc.jetstream().stream_info(infra.stream_name)
    assert (info.state.messages, info.state.first_seq) == (4, 1)
    await _in_thread(jipsa, infra, "replay", "--from", "3")
    assert (await nc.jetstream().stream_info(infra.stream_name)).state.messages == 4, (
        "re-feeding twice is harmless"
    )


async def test_dlq_list_and_replay(store, nc, infra) -> None:
    async def never(ctx):
        raise ValueError("bad tool")

    consumer = Consumer(Subscription("planner", "QueryReceived", never), store.pool, nc, infra)
    await consumer.ensure()
    await nc.jetstream().publish(
        f"{infra.namespace}.v1.QueryReceived", b"{broken", headers={"Nats-Msg-Id": "b1"}
    )
    (msg,) = await (await nc.jetstream().pull_subscribe_bind(consumer.durable, infra.stream_name)).fetch(1)
    assert await consumer.handle_message(msg) == "parked"

    listed = json.loads(await _in_thread(jipsa, infra, "dlq", "list", "--json"))
    assert [(d["consumer"], d["event_id"]) for d in listed] == [("planner", "b1")]
    assert "unreadable message" in listed[0]["error"]
    await _in_thread(jipsa, infra, "dlq", "replay", str(listed[0]["id"]))
    await wait_until(lambda: _open_letters(store, 0), what="the letter marked replayed")


async def _open_letters(store, n: int) -> bool:
    return len(await list_dead_letters(store.pool)) == n


async def _in_thread(fn, *args):
    """The CLI runs its own event loop; keep it off the test's."""
    return await asyncio.to_thread(fn, *args)
