"""A planner-shaped consumer process that hangs inside its handler when told to, to be killed there."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from services.platform.bus import ConsumerPolicy, connect
from services.platform.consumer import Consumer, HandlerContext, Outcome, Subscription
from services.platform.db import open_pool
from services.platform.settings import InfraSettings
from tests.integration.bus_helpers import plan_once


async def hang_then_plan(ctx: HandlerContext) -> Outcome:
    marker = os.environ.get("HANG_MARKER")
    outcome = await plan_once(ctx)
    if marker:
        Path(marker).touch()
        await asyncio.sleep(3600)  # killed here, with the claim and the plan uncommitted
    return outcome


async def main() -> None:
    from services.platform.publisher import Publisher

    settings = InfraSettings()
    pool = await open_pool(settings.database_url)
    nc = await connect(settings.nats_url, "slow-planner")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    policy = ConsumerPolicy.from_infra(ack_wait_s=2, backoff_s=[0.1])
    consumer = Consumer(Subscription("planner", "QueryReceived", hang_then_plan), pool, nc, settings, policy)
    publisher = Publisher(pool, nc, settings)
    await asyncio.gather(consumer.run(stop), publisher.run(stop))
    await nc.close()
    await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
