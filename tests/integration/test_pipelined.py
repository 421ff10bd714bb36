"""Pipelined publishes (services/platform/pipelined.py) against a real JetStream: every answer reaches the
call it belongs to, in the order sent, and a refusal, a subject no stream takes and a silence each end
the call with an error its caller can read."""

from __future__ import annotations

import asyncio

import pytest
from nats.js.errors import APIError, NoStreamResponseError

from services.platform.bus import ensure_stream
from services.platform.pipelined import Message, Pipeline

pytestmark = pytest.mark.integration


def messages(subject: str, ids: list[str]) -> list[Message]:
    return [Message(subject, f"body {i}".encode(), {"Nats-Msg-Id": i}) for i in ids]


async def test_concurrent_calls_each_get_their_own_acknowledgements_in_order(nc, infra) -> None:
    await ensure_stream(nc.jetstream(), infra)
    pipeline = Pipeline(nc)
    subject = f"{infra.namespace}.v1.QueryReceived"
    calls = [messages(subject, [f"call{c}-{i}" for i in range(40)]) for c in range(5)]
    answered = await asyncio.gather(*(pipeline.publish(call, 10) for call in calls))
    stored = nc.jetstream()
    for call, acks in zip(calls, answered, strict=True):
        assert len(acks) == len(call) and not any(a.duplicate for a in acks)
        assert [a.seq for a in acks] == sorted(a.seq for a in acks)  # in the order sent
        for m, ack in zip(call, acks, strict=True):  # each sequence is the message it answers
            assert (await stored.get_msg(infra.stream_name, ack.seq)).headers["Nats-Msg-Id"] == m.headers[
                "Nats-Msg-Id"
            ]
    assert len({a.seq for acks in answered for a in acks}) == 200


async def test_a_message_the_stream_holds_already_is_acknowledged_as_a_duplicate(nc, infra) -> None:
    await ensure_stream(nc.jetstream(), infra)
    pipeline = Pipeline(nc)
    subject = f"{infra.namespace}.v1.QueryReceived"
    (first,) = await pipeline.publish(messages(subject, ["once"]), 10)
    again, other = await pipeline.publish(messages(subject, ["once", "other"]), 10)
    assert again.duplicate and again.seq == first.seq
    assert not other.duplicate and other.seq == first.seq + 1


async def test_a_subject_no_stream_takes_fails_the_call(nc, infra) -> None:
    with pytest.raises(NoStreamResponseError):
        await Pipeline(nc).publish(messages(f"{infra.namespace}-nowhere.x", ["lost"]), 10)


async def test_a_refused_message_fails_the_call_with_jetstreams_answer(nc, infra) -> None:
    await ensure_stream(nc.jetstream(), infra)
    subject = f"{infra.namespace}.v1.QueryReceived"
    refused = Message(subject, b"x", {"Nats-Msg-Id": "wrong", "Nats-Expected-Stream": "not-this-one"})
    with pytest.raises(APIError) as raised:
        await Pipeline(nc).publish([*messages(subject, ["fine"]), refused], 10)
    assert raised.value.code == 400


async def test_a_call_unanswered_times_out_and_a_late_answer_is_dropped(nc, infra) -> None:
    """Something that is not JetStream listens on the subject and keeps the requests: no answer comes."""
    subject = f"{infra.namespace}-silent.x"
    held = []

    async def keep(msg) -> None:
        held.append(msg)

    await nc.subscribe(subject, cb=keep)
    pipeline = Pipeline(nc)
    with pytest.raises(TimeoutError):
        await pipeline.publish(messages(subject, ["unanswered"]), 0.3)
    await held[0].respond(b'{"stream": "late", "seq": 999}')  # the call has ended: nobody waits for it
    await ensure_stream(nc.jetstream(), infra)
    (ack,) = await pipeline.publish(messages(f"{infra.namespace}.v1.QueryReceived", ["after"]), 10)
    assert (await nc.jetstream().get_msg(infra.stream_name, ack.seq)).headers["Nats-Msg-Id"] == "after"
