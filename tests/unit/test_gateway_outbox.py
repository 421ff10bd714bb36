"""One socket's delivery: positions only go up, each once; held messages wait, then pass the same check.
The last test plays the resume race of follower.py step by step."""

from __future__ import annotations

import pytest

from services.gateway.feed.outbox import Outbox

pytestmark = pytest.mark.unit


def at(position: int) -> dict:
    return {"type": "todo_updated", "run_id": "r", "position": position}


def drained(outbox: Outbox) -> list[int | None]:
    sent = []
    while not outbox._queue.empty():
        sent.append(outbox._queue.get_nowait()["position"])
    return sent


def test_a_new_socket_holds_until_it_starts_from_the_head() -> None:
    outbox = Outbox("s", max_pending=100)
    for position in (9, 10, 11):
        outbox.offer(at(position))  # fanned out while the socket was reading the head
    outbox.release(10)
    outbox.offer(at(11))  # a duplicate can reach it twice (a held copy and a live one)
    outbox.offer(at(12))
    outbox.offer(at(8))
    assert drained(outbox) == [11, 12]


def test_replies_are_not_position_checked() -> None:
    outbox = Outbox("s", max_pending=100)
    outbox.release(5)
    outbox.reply({"type": "pong", "run_id": None, "position": None})
    outbox.offer(at(6))
    assert drained(outbox) == [None, 6]


def test_resume_replays_then_releases_what_arrived_meanwhile_without_gap_or_duplicate() -> None:
    outbox = Outbox("s", max_pending=100)
    outbox.release(20)  # connected at head 20; the client says it has up to 12
    outbox.hold()  # 1. hold
    outbox.offer(at(21))  # live offers arrive during the replay...
    checkpoint = 22  # 2. read after the hold: every earlier live offer is at or below it
    outbox.offer(at(22))
    outbox.restart_after(12)
    for position in (13, 15, 21, 22):  # 3. the session's events in (12, 22]
        outbox.send_event(at(position))
    outbox.offer(at(23))  # ...and after the replay's read
    assert checkpoint == 22
    outbox.release(12)  # 4. held 21, 22 are duplicates and dropped; 23 is new
    outbox.offer(at(24))
    assert drained(outbox) == [13, 15, 21, 22, 23, 24]


def test_a_resume_never_goes_below_what_this_socket_sent() -> None:
    outbox = Outbox("s", max_pending=100)
    outbox.release(0)
    outbox.offer(at(7))
    outbox.hold()
    outbox.restart_after(3)
    for position in (5, 7, 8):
        outbox.send_event(at(position))
    outbox.release(3)
    assert drained(outbox) == [7, 8]


def test_a_reader_too_slow_for_its_messages_is_flagged() -> None:
    outbox = Outbox("s", max_pending=3)
    outbox.release(0)
    for position in range(1, 5):
        outbox.offer(at(position))
    assert outbox.overflowed.is_set()
