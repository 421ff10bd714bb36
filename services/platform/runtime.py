"""Which servers a run uses, and how the commands of another terminal find them.

`make run` with DATABASE_URL / NATS_URL set uses those servers. Without them it starts the
embedded Postgres and NATS under the data folder, on the ports the last run used, so a URL
copied from an earlier run (or held by a client that reconnects) still reaches them. The URLs
in use are written to `urls.json` beside the data, for `jipsa audit` and friends; that file is
removed when the run stops and carries the supervisor's pid, so a stale one is recognised.

`python -m services.platform.runtime migrate` migrates the env's DATABASE_URL (the compose
file's one-shot `migrate` service).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from services.platform.db import migrate
from services.platform.servers import EmbeddedNats, EmbeddedPostgres, free_port
from services.platform.settings import InfraSettings, ResolvedInfra

DATABASE_NAME = "jipsa"
Server = EmbeddedNats | EmbeddedPostgres


class ServersNotFound(RuntimeError):
    """A CLI command was run with no servers named and no run of `make run` up."""


def resolve_servers(settings: InfraSettings) -> tuple[str, str, list[Server]]:
    """(database_url, nats_url, the embedded servers started here, for the caller to stop)."""
    started: list[Server] = []
    try:
        database_url, nats_url = settings.database_url, settings.nats_url
        ports = _remembered_ports(settings.data_dir)
        if not database_url:
            pg = EmbeddedPostgres(settings.data_dir / "postgres", _reusable(ports.get("postgres")))
            started.append(pg)
            database_url = _ensure_database(pg.start(), DATABASE_NAME)
            ports["postgres"] = pg.port
        if not nats_url:
            nats = EmbeddedNats(settings.data_dir / "nats", _reusable(ports.get("nats")))
            started.append(nats)
            nats_url = nats.start()
            ports["nats"] = nats.port
        _write_json(settings.data_dir / "servers.json", ports)
        return database_url, nats_url, started
    except BaseException:  # Ctrl-C mid-start included: nothing we started may outlive us
        stop_servers(started)
        raise


def stop_servers(servers: list[Server]) -> None:
    """Postgres gets its 'fast' shutdown (SIGINT), NATS a TERM; both flush before exiting."""
    for server in reversed(servers):
        server.stop()


@contextmanager
def infrastructure(settings: InfraSettings) -> Iterator[ResolvedInfra]:
    """Servers resolved, database migrated, URLs published; all undone on the way out."""
    with servers_up(settings) as (resolved, _):
        yield resolved


@contextmanager
def servers_up(settings: InfraSettings) -> Iterator[tuple[ResolvedInfra, list[Server]]]:
    """`infrastructure`, also handing out the embedded servers it started (for procman to watch)."""
    database_url, nats_url, started = resolve_servers(settings)
    try:
        migrate(database_url)
        resolved = ResolvedInfra.of(settings, database_url, nats_url)
        write_urls(resolved)
        try:
            yield resolved, started
        finally:
            (settings.data_dir / "urls.json").unlink(missing_ok=True)
    finally:
        stop_servers(started)


def write_urls(settings: ResolvedInfra) -> Path:
    path = settings.data_dir / "urls.json"
    urls = {
        "DATABASE_URL": settings.database_url,
        "NATS_URL": settings.nats_url,
        "JIPSA_NAMESPACE": settings.namespace,
        "pid": os.getpid(),
    }
    _write_json(path, urls)
    return path


def load_infra_settings() -> ResolvedInfra:
    """For CLI commands: the env's URLs first, else those of the `make run` that is up."""
    settings = InfraSettings()
    if settings.database_url and settings.nats_url:
        return ResolvedInfra.of(settings, settings.database_url, settings.nats_url)
    path = settings.data_dir / "urls.json"
    urls = json.loads(path.read_text()) if path.exists() else None
    if urls is None or not _alive(urls.get("pid")):
        raise ServersNotFound(
            f"No servers to talk to: DATABASE_URL / NATS_URL are not set and no `make run` is up "
            f"(no live {path}). Start the system with `make run` in another terminal, "
            f"or set DATABASE_URL and NATS_URL."
        )
    if "namespace" not in settings.model_fields_set:  # an explicit JIPSA_NAMESPACE wins over the run's
        settings = settings.model_copy(update={"namespace": urls["JIPSA_NAMESPACE"]})
    return ResolvedInfra.of(
        settings, settings.database_url or urls["DATABASE_URL"], settings.nats_url or urls["NATS_URL"]
    )


def _remembered_ports(data_dir: Path) -> dict[str, int]:
    path = data_dir / "servers.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _reusable(port: int | None) -> int | None:
    """The port of the last run if it is free now; None lets the server pick a new free one."""
    if port is None:
        return None
    with socket.socket() as s:
        # Both servers bind with SO_REUSEADDR, so a port left in TIME_WAIT by the last run is
        # free to them; probing without it would move the servers for no reason.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return free_port()
    return port


def _ensure_database(server_url: str, name: str) -> str:
    with psycopg.connect(server_url, autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            admin.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rpartition('/')[0]}/{name}"


def _alive(pid: object) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def _write_json(path: Path, data: object) -> None:
    """Write then rename, so a reader in another terminal never sees half a file; readable by this
    user only, since urls.json carries the embedded Postgres's password."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.chmod(0o600)
    tmp.replace(path)


if __name__ == "__main__":
    if sys.argv[1:] != ["migrate"]:
        sys.exit("usage: python -m services.platform.runtime migrate")
    url = InfraSettings().database_url
    if not url:
        sys.exit("DATABASE_URL is not set")
    migrate(url)
