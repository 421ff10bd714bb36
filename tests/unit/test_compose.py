"""docker-compose.yml, read rather than run (no Docker engine here): the NATS cluster is a
cluster, state survives on volumes, everything starts in order, and the app services are the
processes `make run` starts."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.platform.procman import load_processes
from services.platform.settings import REPO_ROOT

pytestmark = pytest.mark.unit

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
DOCKERFILE = "infra/docker/Dockerfile"
NATS_NODES = sorted(name for name, s in SERVICES.items() if s.get("image", "").startswith("nats:"))
ONE_SHOT = {name for name, s in SERVICES.items() if s.get("restart") == "no"}
APP_SERVICES = sorted(name for name, s in SERVICES.items() if "build" in s and name not in ONE_SHOT)


def flags(command: list[str]) -> dict[str, str | None]:
    """`--flag value` and bare `-flag` pairs of a nats-server command line."""
    parsed: dict[str, str | None] = {}
    for i, arg in enumerate(command):
        if arg.startswith("-"):
            following = command[i + 1] if i + 1 < len(command) else None
            parsed[arg] = None if following is None or following.startswith("-") else following
    return parsed


def conditions(service: str) -> dict[str, str]:
    return {dep: spec["condition"] for dep, spec in SERVICES[service].get("depends_on", {}).items()}


def module_of(command: list[str]) -> str:
    assert command[:2] == ["python", "-m"], command
    return command[2]


def test_three_nats_nodes_route_to_each_other() -> None:
    assert NATS_NODES == ["nats-1", "nats-2", "nats-3"]
    cluster_names = set()
    for node in NATS_NODES:
        f = flags(SERVICES[node]["command"])
        assert f["--name"] == node, "JetStream clustering needs a unique server name"
        assert f["--cluster"] == "nats://0.0.0.0:6222"
        others = {f"nats://{other}:6222" for other in NATS_NODES if other != node}
        assert set((f["--routes"] or "").split(",")) == others
        cluster_names.add(f["--cluster_name"])
    assert len(cluster_names) == 1 and None not in cluster_names


@pytest.mark.parametrize("node", ["nats-1", "nats-2", "nats-3"])
def test_jetstream_is_on_with_its_store_on_a_named_volume(node: str) -> None:
    f = flags(SERVICES[node]["command"])
    assert "-js" in f or "--jetstream" in f
    store = f.get("--store_dir") or f.get("-sd")
    mounts = dict(volume.split(":", 1) for volume in SERVICES[node]["volumes"])
    volume = next((name for name, target in mounts.items() if target.split(":")[0] == store), None)
    assert volume in COMPOSE["volumes"], f"{node} keeps its streams in {store}, which is on no named volume"
    assert "healthcheck" in SERVICES[node]


def test_every_service_has_an_image_or_a_build_that_exists() -> None:
    for name, service in SERVICES.items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            assert (REPO_ROOT / service["build"]["context"] / service["build"]["dockerfile"]).is_file()


def test_postgres_has_a_healthcheck_and_keeps_its_data() -> None:
    postgres = SERVICES["postgres"]
    assert postgres["image"].startswith("postgres:16")
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])


def test_startup_order_waits_on_health_and_migration() -> None:
    assert conditions("migrate") == {"postgres": "service_healthy"}
    assert module_of(SERVICES["migrate"]["command"]) == "services.platform.runtime"
    for name in APP_SERVICES:
        assert conditions(name) == {
            "migrate": "service_completed_successfully",
            **{node: "service_healthy" for node in NATS_NODES},
        }, name
        assert SERVICES[name]["restart"] in ("unless-stopped", "always", "on-failure"), name


def test_app_services_reach_every_nats_node_and_postgres() -> None:
    for name in [*APP_SERVICES, *ONE_SHOT]:
        env = SERVICES[name]["environment"]
        assert set(env["NATS_URL"].split(",")) == {f"nats://{node}:4222" for node in NATS_NODES}
        assert re.fullmatch(r"postgresql://\w+:\w+@postgres:5432/\w+", env["DATABASE_URL"])


@pytest.mark.parametrize("service", APP_SERVICES + sorted(ONE_SHOT))
def test_each_service_command_names_a_runnable_module(service: str) -> None:
    module = module_of(SERVICES[service]["command"])
    spec = importlib.util.find_spec(module)
    assert spec is not None, f"{service} runs `python -m {module}`, which does not exist"
    if spec.submodule_search_locations is not None:  # a package runs through its __main__
        assert importlib.util.find_spec(f"{module}.__main__") is not None, f"{module} has no __main__"
    else:  # a module runs only what its main guard runs
        assert spec.origin and 'if __name__ == "__main__"' in Path(spec.origin).read_text(), module


def test_compose_runs_the_processes_make_run_starts() -> None:
    processes = {p.name: p for p in load_processes()}
    assert sorted(processes) == APP_SERVICES
    for name, process in processes.items():
        command = [sys.executable if arg == "python" else arg for arg in SERVICES[name]["command"]]
        assert command == process.command, name
        assert SERVICES[name].get("deploy", {}).get("replicas", 1) >= process.replicas, name


@pytest.mark.parametrize("team", ["search", "analysis", "document"])
def test_each_team_runs_two_replicas_that_share_its_consumer(team: str) -> None:
    """Replicas bind one durable consumer (services/platform/consumer.py), so a step runs once."""
    assert SERVICES[team]["deploy"]["replicas"] == 2


def test_the_gateway_is_reachable_from_the_host_and_checked_for_health() -> None:
    gateway = SERVICES["gateway"]
    assert "8000:8000" in gateway["ports"]
    assert gateway["environment"]["JIPSA_GATEWAY_HOST"] == "0.0.0.0"
    assert "http://127.0.0.1:8000/readyz" in " ".join(gateway["healthcheck"]["test"])


@pytest.mark.parametrize("service", [name for name in APP_SERVICES if name != "gateway"])
def test_each_worker_is_checked_on_its_probe_port(service: str) -> None:
    """Healthy means ready (services/platform/probes.py), asked on the port the worker serves it on."""
    port = SERVICES[service]["environment"]["JIPSA_HEALTH_PORT"]
    assert f"http://127.0.0.1:{port}/readyz" in " ".join(SERVICES[service]["healthcheck"]["test"])


def test_every_service_sends_telemetry_to_the_collector() -> None:
    collector = SERVICES["otel-collector"]
    config_mount = next(v for v in collector["volumes"] if v.startswith("./infra/otel/"))
    assert (REPO_ROOT / config_mount.split(":")[0]).is_file()
    config = yaml.safe_load((REPO_ROOT / config_mount.split(":")[0]).read_text())
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].endswith(":4318")
    for name in APP_SERVICES:
        assert SERVICES[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"


def test_the_dockerfile_copies_only_what_exists() -> None:
    dockerfile = (REPO_ROOT / DOCKERFILE).read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, flags=re.M)
    assert "uv sync --frozen" in dockerfile
    for line in re.findall(r"^COPY (?!--from)(.+)$", dockerfile, flags=re.M):
        for source in line.split()[:-1]:
            assert (REPO_ROOT / source).exists(), f"the Dockerfile copies {source}, which is not in the repo"
