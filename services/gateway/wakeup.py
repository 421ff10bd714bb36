"""Wake the follower when the projector commits a new checkpoint (NOTIFY `jipsa_projections`).

The follower never reads past the checkpoint, so an append (`jipsa_events`) alone gives it nothing to
do; the projector's notice, sent at the commit that moves the checkpoint, is the one that matters.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg

from services.platform.wakeup import StoreWakeup

log = logging.getLogger(__name__)

PROJECTIONS_CHANNEL = "jipsa_projections"


class CheckpointWakeup(StoreWakeup):
    """StoreWakeup's waiting and reconnecting, on the projector's channel instead of the store's."""

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.database_url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {PROJECTIONS_CHANNEL}")
                    self._notified.set()  # notices sent while we were not listening are lost: look once
                    async for _ in conn.notifies():
                        self._notified.set()
            except psycopg.OperationalError as e:  # Postgres restarting: the follower polls meanwhile
                log.warning("listen %s: %s; reconnecting", PROJECTIONS_CHANNEL, e)
                await asyncio.sleep(1.0)
