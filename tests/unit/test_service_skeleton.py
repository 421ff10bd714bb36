"""Every service folder has the same skeleton: `__main__`, `bootstrap.py`, `handlers.py` and a README.
The `__main__` only calls its bootstrap's `main` (the one place the service is assembled); the README's
consumes line is the published list of who consumes what (contracts/consumers.py) and its produces
line names only events the contracts say the service may record, so the first page a newcomer reads
cannot drift from the wire."""

from __future__ import annotations

import ast
import re

import pytest

from contracts import REGISTRY
from contracts.consumers import EVERY_EVENT_CONSUMERS, consumed_by
from contracts.values import Team
from services.platform.settings import REPO_ROOT

pytestmark = pytest.mark.unit

SHARED_PACKAGES = {"platform", "housing"}  # the infrastructure and the domain package: not services
CLIENTS = {"ask"}  # `jipsa ask`, a client of the gateway: it consumes and records nothing
SERVICES = sorted(
    p.name
    for p in (REPO_ROOT / "services").iterdir()
    if (p / "__init__.py").exists() and p.name not in SHARED_PACKAGES | CLIENTS
)
TEAMS = {team.value for team in Team}
EVENTS = {model.event_type: model for model in REGISTRY.current()}


def readme_line(service: str, label: str) -> str:
    lines = (REPO_ROOT / "services" / service / "README.md").read_text().splitlines()
    (line,) = [line for line in lines if line.startswith(f"- {label}:")]
    return line


def named(line: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", line))


def may_record(service: str, event_type: str) -> bool:
    """Per the contracts' `producer`: the service itself, any team for a team's events, and any
    service for the record of an LLM call it made."""
    producer = EVENTS[event_type].producer
    return producer in (service, "llm") or (producer == "team" and service in TEAMS)


def test_the_services_are_the_seven_of_the_design() -> None:
    assert SERVICES == ["analysis", "document", "gateway", "planner", "projector", "search", "supervisor"]


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_has_the_same_named_parts(service: str) -> None:
    folder = REPO_ROOT / "services" / service
    assert {"__main__.py", "bootstrap.py", "handlers.py", "README.md"} <= {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("service", SERVICES)
def test_main_only_runs_what_bootstrap_assembles(service: str) -> None:
    tree = ast.parse((REPO_ROOT / "services" / service / "__main__.py").read_text())
    assert not [node for node in tree.body if isinstance(node, ast.Import)]
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert [(i.module, [a.name for a in i.names]) for i in imports] == [
        (f"services.{service}.bootstrap", ["main"])
    ]


@pytest.mark.parametrize("service", SERVICES)
def test_the_readme_consumes_what_the_published_list_says(service: str) -> None:
    line = readme_line(service, "Consumes")
    assert named(line) == set(consumed_by(service))
    assert ("every event" in line) == (service in EVERY_EVENT_CONSUMERS)


@pytest.mark.parametrize("service", SERVICES)
def test_the_readme_produces_what_the_contracts_let_it_record(service: str) -> None:
    produced = named(readme_line(service, "Produces"))
    assert produced <= EVENTS.keys()
    assert {event_type for event_type in produced if not may_record(service, event_type)} == set()
    assert {t for t, model in EVENTS.items() if model.producer == service} <= produced
