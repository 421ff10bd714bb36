"""Everything the routes need, built once per app by the lifespan and handed to them (no globals)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from services.gateway.feed.follower import Follower
from services.gateway.feed.reads import Reads
from services.gateway.handlers import RunRequests
from services.gateway.held_bus import HeldBus
from services.gateway.people import People
from services.gateway.sessions import Sessions
from services.gateway.settings import GatewaySettings


@dataclass(frozen=True)
class Ports:
    settings: GatewaySettings
    bus: HeldBus  # the one NATS connection, for /readyz
    sessions: Sessions
    people: People
    reads: Reads
    requests: RunRequests
    follower: Follower
    follower_task: asyncio.Task[None]

    def follower_status(self) -> str:
        if not self.follower_task.done():
            return "ok"
        failure = None if self.follower_task.cancelled() else self.follower_task.exception()
        return f"stopped: {failure!r}" if failure else "stopped"
