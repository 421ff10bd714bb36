"""Which stream fields the start-up reconcile compares (services/platform/streams.py), without a server."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
from nats.js.api import StorageType, StreamConfig

from services.platform.bus import stream_config
from services.platform.settings import InfraSettings
from services.platform.streams import MANAGED, differences, refusal

pytestmark = pytest.mark.unit


def test_every_field_the_stream_config_sets_is_one_the_reconcile_compares() -> None:
    ours = stream_config(InfraSettings())
    default = StreamConfig()
    set_by_us = {f.name for f in fields(ours) if getattr(ours, f.name) != getattr(default, f.name)}
    assert set_by_us - {"name"} <= set(MANAGED)


def test_the_servers_answer_compares_equal_to_our_config() -> None:
    """stream_info answers enums as strings and seconds as floats: the same config, no differences."""
    ours = stream_config(InfraSettings(JIPSA_STREAM_REPLICAS=3))
    answered = StreamConfig.from_response(ours.as_dict())
    assert answered.storage == "file" and isinstance(answered.max_age, float)
    assert differences(answered, ours) == {}
    assert differences(replace(answered, subjects=list(reversed(answered.subjects or []))), ours) == {}


def test_only_what_jetstream_keeps_for_life_is_refused() -> None:
    ours = stream_config(InfraSettings())
    other = replace(ours, storage=StorageType.MEMORY, num_replicas=3, max_age=60)
    changed = differences(other, ours)
    assert changed == {"storage": ("memory", "file"), "num_replicas": (3, 1), "max_age": (60, ours.max_age)}
    assert refusal("storage", "memory", "file")
    assert refusal("retention", "limits", "workqueue") and not refusal("retention", "limits", "interest")
    assert not refusal("num_replicas", 3, 1) and not refusal("max_age", 60, 1209600)
