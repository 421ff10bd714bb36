"""Liveness and readiness as an orchestrator probes them, against real servers: the gateway's routes and
the probe port of every worker (`JIPSA_HEALTH_PORT`). Each test owns its NATS server, so it can take
NATS away from under a running process and see readiness say so while liveness holds."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

from services.analysis.bootstrap import build as analysis_build
from services.planner.bootstrap import build as planner_build
from services.platform.probes import ProbeSettings
from services.platform.servers import EmbeddedNats, free_port
from services.platform.service import Build, serve
from services.platform.settings import REPO_ROOT, InfraSettings
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import serving

pytestmark = pytest.mark.integration
READY = {"postgres": "ok", "nats": "ok"}


@pytest.fixture
def own_nats(tmp_path: Path) -> Iterator[EmbeddedNats]:
    server = EmbeddedNats(tmp_path / "nats")
    server.start()
    yield server
    server.stop()


async def probe(base_url: str, path: str) -> httpx.Response | None:
    """The probe's answer, or None while nothing listens yet."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        try:
            return await http.get(path)
        except httpx.TransportError:
            return None


async def answers(base_url: str, path: str, status: int) -> httpx.Response:
    """Once `path` answers `status` (readiness follows the servers within a few reconnections)."""
    seen: list[httpx.Response] = []

    async def answered() -> bool:
        response = await probe(base_url, path)
        seen[:] = [response] if response is not None else []
        return response is not None and response.status_code == status

    await wait_until(answered, what=f"{path} answering {status}")
    return seen[0]


@contextlib.asynccontextmanager
async def worker(name: str, build: Build, infra: InfraSettings) -> AsyncIterator[str]:
    """The service served in-process as `main` serves it, its probes on a port of its own."""
    port = free_port()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(name, build, infra, stop, probes=ProbeSettings(port=port)))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


async def test_a_worker_is_ready_with_its_servers_and_says_why_not_without_nats(
    infra: InfraSettings, own_nats: EmbeddedNats
) -> None:
    async with worker("analysis", analysis_build, infra.model_copy(update={"nats_url": own_nats.url})) as url:
        ready = await answers(url, "/readyz", 200)
        assert ready.json() == READY

        own_nats.stop()
        not_ready = await answers(url, "/readyz", 503)
        assert not_ready.json()["postgres"] == "ok"
        assert not_ready.json()["nats"] in ("reconnecting", "not connected")
        live = await probe(url, "/livez")
        assert live is not None and (live.status_code, live.json()) == (200, {"process": "ok"})

        own_nats.start()  # on the same port: the held connection comes back by itself
        assert (await answers(url, "/readyz", 200)).json() == READY


async def test_a_worker_waiting_for_nats_at_start_is_live_and_not_ready(infra: InfraSettings) -> None:
    nothing_listens = f"nats://127.0.0.1:{free_port()}"
    async with worker(
        "planner", planner_build, infra.model_copy(update={"nats_url": nothing_listens})
    ) as url:
        waiting = await answers(url, "/readyz", 503)
        assert waiting.json() == {"postgres": "ok", "start": "waiting for NATS"}
        live = await probe(url, "/livez")
        assert live is not None and live.status_code == 200


async def test_a_probe_port_answers_only_its_two_paths(infra: InfraSettings) -> None:
    async with worker("analysis", analysis_build, infra) as url:
        await answers(url, "/readyz", 200)
        missing = await probe(url, "/metrics")
        assert missing is not None and missing.status_code == 404
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.post("/readyz")).status_code == 405


@pytest.mark.parametrize("module", ["services.document", "services.projector", "services.platform.publisher"])
async def test_each_kind_of_process_serves_its_probes_from_the_environment(
    module: str, infra: InfraSettings
) -> None:
    """The process as make run, compose and the chart start it: JIPSA_HEALTH_PORT from the environment.
    (The document team stands for the services run by services/platform/service.py's `main`; the
    projector and the publisher have mains of their own.)"""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": infra.database_url,
        "NATS_URL": infra.nats_url,
        "JIPSA_NAMESPACE": infra.namespace,
        "JIPSA_HEALTH_PORT": str(port),
    }
    process = subprocess.Popen([sys.executable, "-m", module], cwd=REPO_ROOT, env=env)
    try:
        ready = await answers(f"http://127.0.0.1:{port}", "/readyz", 200)
        expected = {"postgres": "ok"} if module == "services.projector" else READY
        assert ready.json() == expected
    finally:
        process.terminate()
        await asyncio.to_thread(process.wait, 15)


async def test_the_gateway_probes_its_held_connection(
    pool: AsyncConnectionPool, own_nats: EmbeddedNats
) -> None:
    async with serving(pool, own_nats.url, health_timeout_s=1.0) as gateway:
        ready = await answers(gateway.http_url, "/readyz", 200)
        assert ready.json() == {**READY, "follower": "ok"}
        alias = await probe(gateway.http_url, "/healthz")
        assert alias is not None and (alias.status_code, alias.json()) == (200, ready.json())

        own_nats.stop()
        not_ready = await answers(gateway.http_url, "/readyz", 503)
        assert not_ready.json()["nats"] in ("reconnecting", "not connected")
        assert not_ready.json()["postgres"] == "ok" and not_ready.json()["follower"] == "ok"
        live = await probe(gateway.http_url, "/livez")
        assert live is not None and (live.status_code, live.json()) == (200, {"process": "ok"})
