"""The published list of who consumes what (contracts/consumers.py) is what the services subscribe to:
a subscription added, dropped or renamed in a service without the list (or the other way round) fails
here, so the AsyncAPI document never describes a wire the services do not run."""

from __future__ import annotations

import pytest

from contracts.consumers import CONSUMERS
from contracts.values import Team
from services.planner.handlers import Planner
from services.platform.consumer import Subscription
from services.platform.llm import LlmClient, LlmSettings
from services.platform.team import team_subscription
from services.supervisor.handlers import Supervisor

pytestmark = pytest.mark.contract


def subject_key(subscription: Subscription) -> str:
    routing = f".{subscription.routing}" if subscription.routing else ""
    return f"{subscription.event_type}{routing}"


async def never_called(*_: object) -> list:
    raise AssertionError("building subscriptions does no work")


def subscriptions_by_service() -> dict[str, list[Subscription]]:
    """Every subscription each service makes, built as the services build them."""
    return {
        "planner": [Planner(LlmClient(LlmSettings())).subscription()],
        "supervisor": Supervisor(respond=never_called).subscriptions(),
        **{team.value: [team_subscription(team, never_called)] for team in Team},
    }


def test_every_service_subscribes_to_exactly_what_the_list_says() -> None:
    subscribed = {
        (service, subject_key(s)) for service, subs in subscriptions_by_service().items() for s in subs
    }
    listed = {(service, key) for key, services in CONSUMERS.items() for service in services}
    assert subscribed == listed


def test_no_two_subscriptions_share_a_durable_consumer() -> None:
    """Each subscription binds a durable consumer of its own: two sharing one would split its messages."""
    durables = [s.consumer for subs in subscriptions_by_service().values() for s in subs]
    assert len(durables) == len(set(durables))
