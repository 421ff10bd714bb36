"""A service stops on SIGTERM within procman's grace whatever it waits on: a Postgres that never
answered (start-up), or one that went away under a message it is handling."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from contracts import subject_for
from services.platform.procman import GRACE_SECONDS
from services.platform.servers import free_port
from tests.integration.bus_helpers import query_event
from tests.integration.bus_helpers import wait_until as wait_async
from tests.integration.test_procman import wait_until

pytestmark = pytest.mark.fault


class Service:
    """`python -m services.planner` as procman starts it, its stderr kept line by line."""

    def __init__(self, database_url: str, nats_url: str) -> None:
        env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": nats_url, "JIPSA_NAMESPACE": "jipsa"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.planner"], env=env, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        self.lines.extend(line.rstrip("\n") for line in self.process.stderr)

    def said(self, text: str, after: int = 0) -> bool:
        return any(text in line for line in self.lines[after:])

    def terminated(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=GRACE_SECONDS)  # procman SIGKILLs a service after this

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_sigterm_while_postgres_never_answered(server_urls) -> None:
    service = Service(f"postgresql://postgres@127.0.0.1:{free_port()}/jipsa", server_urls.nats_url)
    try:
        wait_until(lambda: service.said("저장소(Postgres)에 연결할 수 없습니다"), 60, "the service waiting")
        assert service.terminated() == 0, "\n".join(service.lines)
    finally:
        service.kill()


async def test_sigterm_while_a_message_waits_on_a_lost_postgres(owned, owned_nc) -> None:
    service = Service(owned.database_url, owned.nats.url)
    try:
        js = owned_nc.jetstream()
        await wait_async(lambda: _bound(js), timeout=60, what="the planner's consumer")
        owned.postgres.stop()
        seen = len(service.lines)
        envelope = query_event("stopped")
        await js.publish(
            subject_for(envelope, "jipsa"),
            envelope.model_dump_json().encode(),
            headers={"Nats-Msg-Id": str(envelope.event_id)},
        )
        wait_until(lambda: service.said("127.0.0.1", after=seen), 60, "the handler meeting the lost Postgres")
        assert service.terminated() == 0, "\n".join(service.lines)
    finally:
        service.kill()


async def _bound(js) -> bool:
    try:
        await js.consumer_info("JIPSA_EVENTS", "jipsa-planner")
    except Exception:
        return False
    return True
