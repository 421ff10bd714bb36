"""A JetStream cluster of nats-server processes on 127.0.0.1, as an operator runs one: each node a
server name, a cluster port and routes to every node; clients are given every node's URL. A cluster
can grow from a single server: its first node is that server restarted (same port, same storage)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from nats.js import JetStreamContext

from services.platform.servers import NATS_BINARY, EmbeddedNats, free_port, wait_for_port


class ClusterNode(EmbeddedNats):
    def __init__(self, root: Path, name: str, routes: list[str], cluster_port: int, port: int | None) -> None:
        super().__init__(root, port)
        self.server_name, self.routes, self.cluster_port = name, routes, cluster_port

    def start(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        log = open(self.root / "nats.log", "ab")  # noqa: SIM115 (the child owns it)
        self.process = subprocess.Popen(
            [
                str(NATS_BINARY),
                "-a",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-js",
                "-sd",
                str(self.store_dir),
                "--server_name",
                self.server_name,
                "--cluster_name",
                "jipsa",
                "--cluster",
                f"nats://127.0.0.1:{self.cluster_port}",
                "--routes",
                ",".join(self.routes),
            ],  # fmt: skip
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port)
        return self.url


class NatsCluster:
    def __init__(self, root: Path, size: int = 3, grown_from: EmbeddedNats | None = None) -> None:
        cluster_ports = [free_port() for _ in range(size)]
        routes = [f"nats://127.0.0.1:{p}" for p in cluster_ports]
        roots = [root / f"n{i}" for i in range(size)]
        ports: list[int | None] = [None] * size
        if grown_from is not None:
            roots[0], ports[0] = grown_from.root, grown_from.port
        self.nodes = {
            f"n{i}": ClusterNode(roots[i], f"n{i}", routes, cluster_ports[i], ports[i]) for i in range(size)
        }

    @property
    def url(self) -> str:
        """NATS_URL as an operator sets it for a cluster: every node, comma-separated."""
        return ",".join(node.url for node in self.nodes.values())

    def start(self) -> None:
        for node in self.nodes.values():
            node.start()

    def stop(self) -> None:
        for node in self.nodes.values():
            node.stop(kill=True)

    def kill(self, name: str) -> None:
        self.nodes[name].stop(kill=True)

    async def leader(self, js: JetStreamContext, stream: str) -> str:
        info = await js.stream_info(stream)
        assert info.cluster is not None and info.cluster.leader, f"{stream} has no leader"
        return info.cluster.leader

    async def consumer_replicated(
        self, js: JetStreamContext, stream: str, durable: str, replicas: int
    ) -> bool:
        """The durable consumer has `replicas` copies, its followers current: losing its leader then
        elects another (a follower not yet current cannot be elected, and the consumer cannot be bound)."""
        try:
            info = await js.consumer_info(stream, durable)
        except Exception:  # an election or a node still joining: not yet
            return False
        followers = (info.cluster.replicas if info.cluster else None) or []
        return len(followers) == replicas - 1 and all(f.current and not f.offline for f in followers)

    async def replicated(self, js: JetStreamContext, stream: str, replicas: int) -> bool:
        """The stream has `replicas` copies, its followers caught up with its leader."""
        try:
            info = await js.stream_info(stream)
        except Exception:  # an election or a node still joining: not yet
            return False
        followers = (info.cluster.replicas if info.cluster else None) or []
        return (
            info.config.num_replicas == replicas
            and len(followers) == replicas - 1
            and all(f.current and not f.offline for f in followers)
        )
