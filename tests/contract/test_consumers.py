"""The published list of who consumes what (contracts/consumers.py) is what the services subscribe to:
a subscription added, dropped or renamed in a service without the list (or the other way round) fails
here, so the AsyncAPI document never describes a wire the services do not run."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from faststream.nats.schemas.js_stream import is_subject_match_wildcard
from faststream.specification import AsyncAPI
from nats.aio.client import Client as NATS

from contracts import export
from contracts.consumers import CONSUMERS, EVERY_EVENT_CONSUMERS
from contracts.values import Team
from services.planner.handlers import Planner
from services.platform.bus import Broker
from services.platform.consumer import Consumer, Subscription
from services.platform.llm import LlmClient, LlmSettings
from services.platform.settings import InfraSettings
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


def test_the_asyncapi_faststream_generates_from_the_subscribers_matches_the_published_one() -> None:
    """Every service's consumers registered on a FastStream broker as they run, and the document FastStream
    generates from them read back: the subjects its subscribers filter on reach exactly the channels
    contracts/asyncapi.json says each service receives (the projector and the relay read the log, not
    these subscriptions)."""
    broker, service_of = Broker(), {}
    for service, subscriptions in subscriptions_by_service().items():
        for subscription in subscriptions:
            consumer = Consumer(subscription, cast(Any, None), NATS(), InfraSettings())
            consumer.subscribe(broker)
            service_of[consumer.subject] = service
    generated = json.loads(AsyncAPI(broker, schema_version="3.0.0").to_specification().to_json())
    published = json.loads(export.ASYNCAPI_PATH.read_text("utf-8"))
    addresses = [channel["address"] for channel in published["channels"].values()]

    reached = set()
    for operation in generated["operations"].values():
        assert operation["action"] == "receive"
        subject = generated["channels"][operation["channel"]["$ref"].rsplit("/", 1)[1]]["address"]
        matching = [a for a in addresses if is_subject_match_wildcard(a, subject)]
        assert matching, f"{subject} reaches no published channel"
        reached |= {(a, service_of[subject]) for a in matching}

    receivers = {
        (channel["address"], operation["tags"][0]["name"])
        for operation in published["operations"].values()
        if operation["action"] == "receive"
        for channel in [published["channels"][operation["channel"]["$ref"].rsplit("/", 1)[1]]]
    }
    assert reached == {(a, s) for a, s in receivers if s not in EVERY_EVENT_CONSUMERS}
