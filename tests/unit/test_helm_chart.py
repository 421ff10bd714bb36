"""infra/helm/jipsa, checked by Helm itself: `helm lint` and `helm template` through Helm's Go SDK
(the helm-python-sdk wheel; no cluster runs here). The rendered objects are then read as an operator
would: every process of infra/processes.toml a Deployment probed on paths the code serves, memory
requests covering what `make load` measured, the migration before everything, and each team scaled on
the backlog metric its consumers really emit."""

from __future__ import annotations

from typing import Any, cast

import helm_python as helm
import pytest
import yaml
from nats.aio.client import Client as NATS
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider

from contracts.values import Team
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.platform import telemetry
from services.platform.consumer import Consumer
from services.platform.probes import LIVENESS_PATH, READINESS_PATH, ProbeSettings
from services.platform.procman import load_processes
from services.platform.settings import REPO_ROOT, InfraSettings
from services.platform.team import team_subscription

pytestmark = pytest.mark.unit

CHART = REPO_ROOT / "infra" / "helm" / "jipsa"
SERVERS = {
    "servers": {"databaseUrl": "postgresql://jipsa:pw@postgres:5432/jipsa", "natsUrl": "nats://nats:4222"}
}
WARNING = 2  # Helm's lint severities: 1 info, 2 warning, 3 error
# Peak resident memory per process under `make load` (50 concurrent sessions, rules mode), MiB.
MEASURED_PEAK_MIB = {
    "search": 696,
    "gateway": 78,
    "planner": 79,
    "supervisor": 81,
    "analysis": 79,
    "document": 68,
    "projector": 59,
    "publisher": 59,
}
Manifest = dict[str, Any]


def rendered(values: dict[str, Any], release: str = "jipsa") -> list[Manifest]:
    """`helm template` of the chart with these values: every object it would install, hooks included."""
    with helm.Chart.load(CHART) as chart:
        manifests = chart.render(values, name=release, namespace="jipsa", is_install=True)
    return [doc for text in manifests.values() for doc in yaml.safe_load_all(text) if doc]


def objects(kind: str, values: dict[str, Any] = SERVERS) -> dict[str, Manifest]:
    return {m["metadata"]["name"]: m for m in rendered(values) if m["kind"] == kind}


def container(workload: Manifest) -> Manifest:
    (only,) = workload["spec"]["template"]["spec"]["containers"]
    return only


def mebibytes(quantity: str) -> int:
    units = {"Mi": 1, "Gi": 1024}
    return int(quantity[:-2]) * units[quantity[-2:]]


def test_helm_lint_finds_nothing_to_warn_about() -> None:
    report = helm.lint(CHART, SERVERS, strict=True)
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= WARNING] == []


def test_a_release_without_servers_is_refused_by_name() -> None:
    with pytest.raises(helm.HelmError, match="servers.databaseUrl"):
        rendered({})


def test_every_process_runs_as_a_deployment_of_its_command() -> None:
    deployments = objects("Deployment")
    processes = load_processes()
    assert sorted(deployments) == sorted(f"jipsa-{p.name}" for p in processes)
    for process in processes:
        command = container(deployments[f"jipsa-{process.name}"])["command"]
        assert command[:2] == ["python", "-m"] and command[2:] == process.command[2:], process.name


def test_probes_ask_the_paths_and_ports_the_code_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    config = objects("ConfigMap")["jipsa-config"]["data"]
    gateway_paths = set(create_app(GatewaySettings(), database_url="", nats_url="").openapi()["paths"])
    assert {LIVENESS_PATH, READINESS_PATH} <= gateway_paths
    for name, value in config.items():  # what every pod's environment holds
        monkeypatch.setenv(name, value)
    workers = ProbeSettings()
    assert workers.host == "0.0.0.0", "the kubelet probes the pod's address, not its loopback"
    for name, deployment in objects("Deployment").items():
        served = container(deployment)
        port = GatewaySettings().port if name == "jipsa-gateway" else workers.port
        assert [p["containerPort"] for p in served["ports"]] == [port], name
        probes = {
            kind: served[kind]["httpGet"] for kind in ("startupProbe", "livenessProbe", "readinessProbe")
        }
        assert probes == {
            "startupProbe": {"path": LIVENESS_PATH, "port": port},
            "livenessProbe": {"path": LIVENESS_PATH, "port": port},
            "readinessProbe": {"path": READINESS_PATH, "port": port},
        }, name


def test_memory_requests_cover_what_make_load_measured() -> None:
    for name, deployment in objects("Deployment").items():
        resources = container(deployment)["resources"]
        peak = MEASURED_PEAK_MIB[name.removeprefix("jipsa-")]
        request, limit = mebibytes(resources["requests"]["memory"]), mebibytes(resources["limits"]["memory"])
        assert peak <= request < limit, (name, peak, request, limit)
        assert resources["requests"]["cpu"].endswith("m") and "cpu" not in resources["limits"], name


def test_the_migration_runs_before_the_services_with_the_urls_it_needs() -> None:
    job = objects("Job")["jipsa-migrate"]
    secret = objects("Secret")["jipsa-servers"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert secret["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    weight = {o["kind"]: int(o["metadata"]["annotations"]["helm.sh/hook-weight"]) for o in (job, secret)}
    assert weight["Secret"] < weight["Job"], "the Job reads DATABASE_URL from the Secret"
    migrate = container(job)
    assert migrate["command"] == ["python", "-m", "services.platform.runtime", "migrate"]
    assert {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in migrate["env"]} == {
        "DATABASE_URL": "jipsa-servers",
        "NATS_URL": "jipsa-servers",
    }
    assert secret["stringData"] == {
        "DATABASE_URL": SERVERS["servers"]["databaseUrl"],
        "NATS_URL": "nats://nats:4222",
    }


def test_an_existing_secret_is_used_and_none_is_made() -> None:
    values = {"servers": {"existingSecret": "prod-servers"}}
    assert objects("Secret", values) == {}
    for workload in [*objects("Deployment", values).values(), *objects("Job", values).values()]:
        env = container(workload)["env"]
        assert {e["valueFrom"]["secretKeyRef"]["name"] for e in env} == {"prod-servers"}


def gateway_operator_token(values: dict[str, Any]) -> dict[str, Any] | None:
    env = container(objects("Deployment", values)["jipsa-gateway"])["env"]
    return next((e["valueFrom"]["secretKeyRef"] for e in env if e["name"] == "JIPSA_OPERATOR_TOKEN"), None)


def test_the_operator_page_is_off_unless_a_token_is_given() -> None:
    assert gateway_operator_token(SERVERS) is None
    assert "jipsa-operator" not in objects("Secret")


def test_an_operator_token_given_as_a_value_reaches_only_the_gateway_through_a_secret() -> None:
    values = {**SERVERS, "operator": {"token": "s3cret-operator"}}
    secret = objects("Secret", values)["jipsa-operator"]
    assert secret["stringData"] == {"JIPSA_OPERATOR_TOKEN": "s3cret-operator"}
    assert gateway_operator_token(values) == {"name": "jipsa-operator", "key": "JIPSA_OPERATOR_TOKEN"}
    for name, workload in objects("Deployment", values).items():
        names = {e["name"] for e in container(workload)["env"]}
        assert ("JIPSA_OPERATOR_TOKEN" in names) == (name == "jipsa-gateway")


def test_an_operator_secret_of_ones_own_is_named_and_none_is_made() -> None:
    values = {**SERVERS, "operator": {"existingSecret": "prod-operator"}}
    assert "jipsa-operator" not in objects("Secret", values)
    assert gateway_operator_token(values) == {"name": "prod-operator", "key": "JIPSA_OPERATOR_TOKEN"}


def emitted_lag_series(team: Team, namespace: str) -> tuple[str, dict[str, str]]:
    """The Prometheus name and labels of the lag a team's consumer reports, from the code that reports
    it: the durable name the consumer binds, the gauge it records into, read back through OTel."""
    settings = InfraSettings(JIPSA_NAMESPACE=namespace)
    durable = Consumer(team_subscription(team, cast(Any, None)), cast(Any, None), NATS(), settings).durable
    reader = InMemoryMetricReader()
    with telemetry.using(TracerProvider(), MeterProvider(metric_readers=[reader])):
        telemetry.record_consumer_lag(durable, 7)
        data = reader.get_metrics_data()
    points = {
        metric.name: dict(point.attributes or {})
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        for point in metric.data.data_points
    }
    ((name, labels),) = points.items()
    # OTel's Prometheus translation: dots become underscores; a unit in braces ({message}) adds no suffix.
    return name.replace(".", "_"), {key: str(value) for key, value in labels.items()}


@pytest.mark.parametrize("team", [Team.SEARCH, Team.ANALYSIS, Team.DOCUMENT])
def test_each_team_scales_on_its_consumers_lag(team: Team) -> None:
    hpa = objects("HorizontalPodAutoscaler")[f"jipsa-{team.value}"]
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": f"jipsa-{team.value}",
    }
    ((metric,),) = [hpa["spec"]["metrics"]]
    assert metric["type"] == "External"
    metric_name, labels = emitted_lag_series(team, namespace="jipsa")
    assert metric["external"]["metric"] == {"name": metric_name, "selector": {"matchLabels": labels}}
    assert metric["external"]["target"]["type"] == "AverageValue"
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    # The HPA owns the replica count: a Deployment that also set one would be reset on every upgrade.
    assert "replicas" not in objects("Deployment")[f"jipsa-{team.value}"]["spec"]


def test_the_consumer_label_follows_the_namespace_setting() -> None:
    values = {**SERVERS, "config": {"namespace": "staging"}}
    hpa = objects("HorizontalPodAutoscaler", values)["jipsa-search"]
    (metric,) = hpa["spec"]["metrics"]
    assert (
        metric["external"]["metric"]["selector"]["matchLabels"]
        == emitted_lag_series(Team.SEARCH, "staging")[1]
    )
    assert objects("ConfigMap", values)["jipsa-config"]["data"]["JIPSA_NAMESPACE"] == "staging"
