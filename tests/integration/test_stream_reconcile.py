"""The events stream brought to its settings at start (services/platform/streams.py), on a real NATS:
an existing stream created with other limits is updated and the log says what changed; one that
matches is left alone and nothing is logged; what JetStream cannot change is refused in the log and
the rest still applied; an update the server refuses leaves the stream working as it was."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from nats.js.api import StorageType

from services.platform.bus import stream_config
from services.platform.publisher import Publisher
from services.platform.settings import InfraSettings
from services.platform.streams import reconcile_stream
from tests.integration.bus_helpers import query_event

pytestmark = pytest.mark.integration
LOGGER = "services.platform.streams"


@pytest.fixture
def settings(server_urls, namespace, tmp_path) -> InfraSettings:
    return InfraSettings(NATS_URL=server_urls.nats_url, JIPSA_NAMESPACE=namespace, JIPSA_DATA_DIR=tmp_path)


@pytest.fixture
async def js(nc, settings):
    js = nc.jetstream()
    yield js
    await js.delete_stream(settings.stream_name)


def messages(caplog, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


async def test_a_stream_created_with_other_limits_is_updated_and_each_change_logged(
    js, settings, caplog
) -> None:
    wanted = stream_config(settings)
    await js.add_stream(
        replace(wanted, max_age=3600, duplicate_window=60, subjects=[f"{settings.namespace}.x.>"])
    )
    await js.publish(f"{settings.namespace}.x.kept", b"an event from before")
    caplog.set_level(logging.INFO, LOGGER)

    info = await reconcile_stream(js, settings)

    name = settings.stream_name
    assert sorted(messages(caplog, logging.INFO)) == sorted([
        f"stream {name}: subjects {settings.namespace}.x.> -> {settings.namespace}.>",
        f"stream {name}: max_age_s 3600 -> {wanted.max_age}",
        f"stream {name}: duplicate_window_s 60 -> {wanted.duplicate_window}",
    ])  # fmt: skip
    now = (await js.stream_info(name)).config
    assert (now.max_age, now.duplicate_window, now.subjects) == (
        wanted.max_age, wanted.duplicate_window, wanted.subjects
    )  # fmt: skip
    assert info.config.max_age == wanted.max_age
    assert (await js.stream_info(name)).state.messages == 1  # an update keeps what the stream holds


async def test_a_stream_as_the_settings_say_is_left_alone_and_nothing_logged(js, settings, caplog) -> None:
    await js.add_stream(stream_config(settings))
    before = await js.stream_info(settings.stream_name)
    caplog.set_level(logging.DEBUG, LOGGER)

    await reconcile_stream(js, settings)
    await reconcile_stream(js, settings)

    assert [r for r in caplog.records if r.name == LOGGER] == []
    assert (await js.stream_info(settings.stream_name)).config == before.config


async def test_a_missing_stream_is_created_as_the_settings_say(js, settings, caplog) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    info = await reconcile_stream(js, settings)
    assert info.config.max_age == stream_config(settings).max_age
    assert messages(caplog, logging.INFO) == []  # created (bus.py says so), nothing changed


async def test_storage_cannot_change_it_is_refused_in_the_log_and_the_rest_applied(
    js, settings, caplog
) -> None:
    wanted = stream_config(settings)
    await js.add_stream(replace(wanted, storage=StorageType.MEMORY, max_age=3600))
    caplog.set_level(logging.INFO, LOGGER)

    await reconcile_stream(js, settings)

    [refused] = messages(caplog, logging.ERROR)
    assert f"stream {settings.stream_name}: storage stays memory (the settings ask file)" in refused
    assert "nats stream rm" in refused and "re-feeds it from the store" in refused
    assert messages(caplog, logging.INFO) == [
        f"stream {settings.stream_name}: max_age_s 3600 -> {wanted.max_age}"
    ]
    now = (await js.stream_info(settings.stream_name)).config
    assert (now.storage, now.max_age) == ("memory", wanted.max_age)


async def test_replicas_a_single_server_cannot_hold_are_refused_and_the_stream_kept(
    js, settings, caplog
) -> None:
    await js.add_stream(stream_config(settings))
    three = settings.model_copy(update={"stream_replicas": 3})
    caplog.set_level(logging.INFO, LOGGER)

    info = await reconcile_stream(js, three)

    [refused] = messages(caplog, logging.ERROR)
    assert f"stream {settings.stream_name}: not updated (replicas 1 -> 3)" in refused
    assert "non-clustered" in refused  # the server's own reason
    assert info.config.num_replicas == 1
    assert (await js.stream_info(settings.stream_name)).config.num_replicas == 1


async def test_the_publisher_reconciles_the_stream_when_it_starts(store, nc, infra, caplog) -> None:
    js = nc.jetstream()
    await js.add_stream(replace(stream_config(infra), max_age=3600))
    await store.append([query_event("r1")])
    caplog.set_level(logging.INFO, LOGGER)
    try:
        publisher = Publisher(store.pool, nc, infra)
        await publisher.verify_stream()
        await publisher.publish_pending()
        await publisher.verify_stream()  # later looks only check the stream is there
        assert messages(caplog, logging.INFO) == [
            f"stream {infra.stream_name}: max_age_s 3600 -> {stream_config(infra).max_age}"
        ]
        assert (await js.stream_info(infra.stream_name)).state.messages == 1
    finally:
        await js.delete_stream(infra.stream_name)
