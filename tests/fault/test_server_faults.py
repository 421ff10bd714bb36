"""The backbone through server faults: NATS stopped, NATS wiped, Postgres restarted, a consumer killed,
and a single NATS grown into a 3-node cluster whose stream leader is then killed."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys

import pytest

from services.platform.bus import ConsumerPolicy, connect
from services.platform.consumer import Consumer, Subscription
from services.platform.publisher import Publisher
from services.projector.runner import Projector
from tests.fault.nats_cluster import NatsCluster
from tests.integration.bus_helpers import count_events, plan_once, query_event, running, wait_until

pytestmark = pytest.mark.fault
POLICY = ConsumerPolicy.from_infra(backoff_s=[0.1, 0.2, 0.5], ack_wait_s=3)


def backbone(store, nc, infra):
    consumer = Consumer(Subscription("planner", "QueryReceived", plan_once), store.pool, nc, infra, POLICY)
    return Publisher(store.pool, nc, infra), consumer


async def append_runs(store, prefix: str, n: int) -> None:
    for i in range(n):
        await store.append([query_event(f"{prefix}{i}")])


async def plans(store, n: int) -> bool:
    return await count_events(store, "PlanReady") >= n


async def exactly_one_plan_per_query(store) -> None:
    async with store.pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT correlation_id, count(*) AS n FROM events WHERE event_type = 'PlanReady' GROUP BY 1"
            )
        ).fetchall()
    queries = await count_events(store, "QueryReceived")
    assert len(rows) == queries and all(r["n"] == 1 for r in rows), "a run was planned twice or not at all"


async def test_nats_stopped_and_started_mid_stream_loses_and_doubles_nothing(
    owned, owned_infra, owned_store, owned_nc
) -> None:
    async with running(*backbone(owned_store, owned_nc, owned_infra)):
        await append_runs(owned_store, "before", 10)
        await wait_until(lambda: plans(owned_store, 10), what="plans before the outage")
        owned.nats.stop()
        await append_runs(owned_store, "during", 10)  # committed while NATS is down: published later
        owned.nats.start()
        await append_runs(owned_store, "after", 10)
        await wait_until(lambda: plans(owned_store, 30), timeout=60, what="every plan after NATS came back")
    await exactly_one_plan_per_query(owned_store)


async def test_nats_restarted_with_its_storage_wiped_is_refed_from_the_store(
    owned, owned_infra, owned_store, owned_nc
) -> None:
    async with running(*backbone(owned_store, owned_nc, owned_infra)):
        await append_runs(owned_store, "before", 10)
        await wait_until(lambda: plans(owned_store, 10), what="plans before the wipe")
        owned.nats.stop(kill=True)
        owned.nats.wipe()
        owned.nats.start()
        await append_runs(owned_store, "after", 10)
        await wait_until(lambda: plans(owned_store, 20), timeout=60, what="plans after the wipe")
        # the stream was rebuilt from the store: it holds every event again, not only the new ones
        await wait_until(
            lambda: _stream_holds(owned_nc, owned_infra, owned_store), timeout=60, what="re-feed"
        )
    await exactly_one_plan_per_query(owned_store)


async def test_postgres_restarted_services_reconnect_by_themselves(
    owned, owned_infra, owned_store, owned_nc
) -> None:
    projector = Projector(owned_store, poll_interval_s=0.2, first_backoff_s=0.1)
    async with running(*backbone(owned_store, owned_nc, owned_infra), projector):
        await append_runs(owned_store, "before", 5)
        await wait_until(lambda: plans(owned_store, 5), what="plans before the restart")
        owned.postgres.stop()
        owned.postgres.start()
        await wait_until(lambda: _appends(owned_store), timeout=60, what="the store answering again")
        await append_runs(owned_store, "after", 5)
        await wait_until(lambda: plans(owned_store, 10), timeout=60, what="plans after the restart")
        await wait_until(lambda: _projected(owned_store), timeout=60, what="the projector at the head again")
    await exactly_one_plan_per_query(owned_store)


async def test_consumer_killed_mid_message_gets_it_again_and_the_effect_happens_once(
    owned, owned_infra, owned_store, tmp_path
) -> None:
    marker = tmp_path / "handling"
    env = {
        **os.environ,
        "DATABASE_URL": owned.database_url,
        "NATS_URL": owned.nats.url,
        "JIPSA_NAMESPACE": "jipsa",
        "HANG_MARKER": str(marker),
    }
    await owned_store.append([query_event("killed")])
    first = subprocess.Popen([sys.executable, "-m", "tests.fault.slow_planner"], env=env)
    try:
        await wait_until(lambda: _exists(marker), timeout=60, what="the consumer inside its handler")
        first.send_signal(signal.SIGKILL)  # mid-message: its transaction and its ack never happen
        first.wait(10)
        assert await count_events(owned_store, "PlanReady") == 0
        second = subprocess.Popen(
            [sys.executable, "-m", "tests.fault.slow_planner"], env={**env, "HANG_MARKER": ""}
        )
        try:
            await wait_until(lambda: plans(owned_store, 1), timeout=60, what="redelivery after ack_wait")
        finally:
            second.terminate()
            second.wait(10)
    finally:
        first.kill()
    await exactly_one_plan_per_query(owned_store)


CLUSTER_RUNS = 20  # under load while the leader goes: enough to span the election, few for `make test`


async def test_a_server_grown_into_a_cluster_gets_three_replicas_and_survives_losing_the_stream_leader(
    owned, owned_infra, owned_store, tmp_path, caplog
) -> None:
    """As an operator scales out: the single server restarted as one node of three (NATS_URL lists
    them), the services restarted with JIPSA_STREAM_REPLICAS=3, which the publisher's start applies to
    the existing stream; then the stream's leader is SIGKILLed while runs arrive, and every run is
    planned exactly once and the stream holds every stored event."""
    single = await connect(owned.nats.url, "single")
    async with running(*backbone(owned_store, single, owned_infra)):
        await append_runs(owned_store, "single", 5)
        await wait_until(lambda: plans(owned_store, 5), what="plans on the single server")
    await single.close()
    owned.nats.stop()
    cluster = NatsCluster(tmp_path / "cluster", grown_from=owned.nats)
    cluster.start()
    one = owned_infra.model_copy(update={"nats_url": cluster.url})  # the servers grown, the settings not yet
    three = one.model_copy(update={"stream_replicas": 3})
    nc = await connect(cluster.url, "cluster-test", first_connect_s=30)
    js, stream = nc.jetstream(), one.stream_name
    try:
        async with running(*backbone(owned_store, nc, one)):
            await append_runs(owned_store, "cluster", 5)
            await wait_until(lambda: plans(owned_store, 10), timeout=60, what="plans once the cluster formed")
        assert (await js.stream_info(stream)).config.num_replicas == 1

        caplog.set_level(logging.INFO, "services.platform.streams")
        async with running(*backbone(owned_store, nc, three)):
            await wait_until(
                lambda: cluster.replicated(js, stream, 3), timeout=60, what="three current copies"
            )
            assert f"stream {stream}: replicas 1 -> 3" in [r.getMessage() for r in caplog.records]
            load = asyncio.create_task(append_spaced(owned_store, "leaderless", CLUSTER_RUNS, 0.1))
            await wait_until(lambda: plans(owned_store, 13), what="plans under load")
            # The planner's consumer too: killed before its copies caught up, it has no leader to elect.
            await wait_until(
                lambda: cluster.consumer_replicated(js, stream, "jipsa-planner", 3),
                timeout=60,
                what="three current copies of the planner's consumer",
            )
            cluster.kill(leader := await cluster.leader(js, stream))
            await load
            every = 10 + CLUSTER_RUNS
            await wait_until(
                lambda: plans(owned_store, every), timeout=90, what="every run after the leader died"
            )
            await wait_until(lambda: _answers(_stream_holds(nc, three, owned_store)), what="every event kept")
            assert await cluster.leader(js, stream) != leader
        await exactly_one_plan_per_query(owned_store)
    finally:
        await nc.close()
        cluster.stop()


async def append_spaced(store, prefix: str, n: int, every_s: float) -> None:
    for i in range(n):
        await store.append([query_event(f"{prefix}{i}")])
        await asyncio.sleep(every_s)


async def _answers(check) -> bool:
    """A check that reads NATS, false while an election leaves a request unanswered."""
    try:
        return await check
    except Exception:
        return False


async def _projected(store) -> bool:
    async with store.pool.connection() as conn:
        cur = await conn.execute("SELECT position FROM checkpoints WHERE name = 'projections'")
        row = await cur.fetchone()
    return row["position"] == await store.head()


async def _exists(path) -> bool:
    return path.exists()


async def _appends(store) -> bool:
    try:
        await store.head()
        return True
    except Exception:
        return False


async def _stream_holds(nc, infra, store) -> bool:
    info = await nc.jetstream().stream_info(infra.stream_name)
    return info.state.messages >= await store.head()
