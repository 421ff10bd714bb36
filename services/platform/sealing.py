"""Crypto-shredding: what a person said is stored sealed with a key of theirs, and forgetting them deletes
the key, so the append-only log keeps every event and no one can read those words again.

What is sealed
--------------
In an event of a person's run, the fields contracts/personal.py names (the question, the facts read from
it, step inputs, findings, the answer). The stored payload is the event as it reads once erased (those
fields replaced by contracts.personal.ERASED, [] or {}), plus `_sealed`: the fields' values, AES-256-GCM
under the run's key, with the run id as associated data. Everything else of the envelope and payload
stays clear (types, ids, positions, times, statuses, teams), so routing, indexes, folds and the operator's
counts work without a key, and opening a payload whose key is gone is only dropping `_sealed`. The store
and NATS (the relay publishes the stored JSON; an appender announces what it stored) carry this form.

Why a key per run, not one per person
-------------------------------------
Every process that appends to a person's run (gateway, planner, supervisor, teams) seals, and each caches
the keys it used. After 모두 잊기 the person may ask again: with one key per person, a process that had
cached the deleted key would seal the new run with it, and the new run would be unreadable at once. A run's
key is made by the event that opens the run (QueryReceived, at the gateway) and forgetting deletes the keys
of every run of the person; a run begun later has a key no cache has seen. A cached key is trusted for
KEY_TTL_S at most, and a process that reads a PersonForgotten drops the person's keys at once. An event
appended to a run whose key is gone (a run in flight when its person was forgotten) is stored erased.

Where payloads are opened
-------------------------
Where an envelope enters a process: rows of the store (eventstore.recorded_from_rows), messages of the bus
(consumer.Consumer.read) and the projector's reads. Keys are read from `person_keys` once per run per
process (per KEY_TTL_S): `Keyring.load` before a sync `open_data`, which raises KeyNotLoaded for a run it
has not loaded. Events of sessions without a person carry no `_sealed` and pay one dict lookup.

The keyring is one per process (KEYRING), as the pool's connections are: it is a cache of a table, the
same in every process, and every read and append of the log would otherwise take it as a parameter.
"""

from __future__ import annotations

import base64
import os
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from contracts import Envelope
from contracts.personal import ERASED, PERSONAL_FIELDS

SEALED = "_sealed"  # the payload key of the sealed fields
OPENS_RUN = "QueryReceived"  # the event that makes its run's key
KEY_TTL_S = 30.0  # how long a process trusts a key it read (forgetting may have deleted it since)
KEYS_HELD = 4096
_NONCE = 12
_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    event_type: tuple(tuple(path.split(".")) for path in paths)
    for event_type, paths in PERSONAL_FIELDS.items()
}


class KeyNotLoaded(Exception):
    """A sealed payload of a run whose key this process has not read: `Keyring.load` it first."""


class KeysUnreadable(Exception):
    """Keys could not be read: the store is away (try again later)."""


class Keyring:
    """The run keys this process has read or made, each with its person and when it was read."""

    def __init__(self, ttl_s: float = KEY_TTL_S, capacity: int = KEYS_HELD) -> None:
        self.ttl_s, self.capacity = ttl_s, capacity
        self._keys: OrderedDict[str, _Held] = OrderedDict()

    def cipher(self, run_id: str) -> AESGCM | None:
        """The run's cipher (None: its key is gone); KeyNotLoaded if not read, or read too long ago."""
        held = self._keys.get(run_id)
        if held is None or time.monotonic() - held.at > self.ttl_s:
            raise KeyNotLoaded(run_id)
        return held.cipher

    def missing(self, run_ids: Iterable[str]) -> list[str]:
        now = time.monotonic()
        return sorted(
            {r for r in run_ids if (held := self._keys.get(r)) is None or now - held.at > self.ttl_s}
        )

    async def load(self, conn: AsyncConnection[Any], run_ids: Iterable[str]) -> None:
        """Read the keys of the runs among `run_ids` not held (one statement; none when all are)."""
        missing = self.missing(run_ids)
        if not missing:
            return
        cur = await conn.cursor(row_factory=dict_row).execute(
            "SELECT run_id, person_id, key FROM person_keys WHERE run_id = ANY(%s)", (missing,)
        )
        found = {r["run_id"]: r for r in await cur.fetchall()}
        for run_id in missing:
            row = found.get(run_id)
            if row is None:
                self.hold(run_id, None, None)
            else:
                self.hold(run_id, row["person_id"], bytes(row["key"]))

    def made(self, run_id: str, person_id: str) -> bytes:
        """The key of a run being opened: the one held if any (a retried append), else a new one."""
        held = self._keys.get(run_id)
        if held is not None and held.key is not None:
            return held.key
        key = os.urandom(32)
        self.hold(run_id, person_id, key)
        return key

    def forget_person(self, person_id: str) -> None:
        for run_id in [r for r, held in self._keys.items() if held.person_id == person_id]:
            self.hold(run_id, person_id, None)

    def drop(self, run_ids: Iterable[str]) -> None:
        for run_id in run_ids:
            self._keys.pop(run_id, None)

    def clear(self) -> None:
        self._keys.clear()

    def hold(self, run_id: str, person_id: str | None, key: bytes | None) -> None:
        self._keys[run_id] = _Held(person_id, key, AESGCM(key) if key else None, time.monotonic())
        self._keys.move_to_end(run_id)
        if len(self._keys) > self.capacity:
            self._keys.popitem(last=False)


@dataclass(frozen=True, slots=True)
class _Held:
    person_id: str | None
    key: bytes | None  # None: deleted (or never made); its run's sealed fields open as erased
    cipher: AESGCM | None
    at: float


KEYRING = Keyring()


async def load_keys(pool: AsyncConnectionPool, run_ids: Iterable[str]) -> None:
    """`KEYRING.load` on a connection of the pool; KeysUnreadable when the store cannot be reached."""
    try:
        async with pool.connection() as conn:
            await KEYRING.load(conn, run_ids)
    except (psycopg.Error, OSError, PoolTimeout) as e:
        raise KeysUnreadable(str(e)) from e


def sealable(envelope: Envelope) -> bool:
    """An event of a person's run with fields of theirs (a person's own stream holds none)."""
    return envelope.person_id is not None and envelope.event_type in _PATHS


@dataclass(frozen=True)
class Sealed:
    """Events as they are stored and published, and the keys of the runs they open, to be inserted by
    the statement that appends them (eventstore.append_in): one round trip, one transaction."""

    events: list[Envelope]
    keys: list[tuple[str, str, bytes]]  # run_id, person_id, key


async def sealed(conn: AsyncConnection[Any], events: Sequence[Envelope]) -> Sealed:
    """The events of a person's runs sealed, the others as they are. A run's opening event makes its
    key; the keys of other runs are read (once per run per process, KEYRING)."""
    personal = [e for e in events if sealable(e)]
    if not personal:
        return Sealed(list(events), [])
    keys = [
        (e.correlation_id, e.person_id, KEYRING.made(e.correlation_id, e.person_id))
        for e in personal
        if e.event_type == OPENS_RUN and e.person_id is not None
    ]
    await KEYRING.load(conn, {e.correlation_id for e in personal})
    return Sealed([seal(e, KEYRING.cipher(e.correlation_id)) if sealable(e) else e for e in events], keys)


def seal(envelope: Envelope, cipher: AESGCM | None) -> Envelope:
    """The envelope with its personal fields erased and, given a cipher, their values sealed beside."""
    data, taken = erase(envelope.data, _PATHS[envelope.event_type])
    if not taken:
        return envelope
    if cipher is not None:
        nonce = os.urandom(_NONCE)
        box = cipher.encrypt(nonce, orjson.dumps(taken), envelope.correlation_id.encode())
        data[SEALED] = base64.b64encode(nonce + box).decode()
    return envelope.model_copy(update={"data": data})


def open_data(data: dict[str, Any], run_id: str, keyring: Keyring = KEYRING) -> dict[str, Any]:
    """The payload as it was written, or erased if its run's key is gone; KeyNotLoaded if not read."""
    box = data.get(SEALED)
    if box is None:
        return data
    cipher = keyring.cipher(run_id)
    opened = {k: v for k, v in data.items() if k != SEALED}
    if cipher is None:
        return opened
    raw = base64.b64decode(box)
    try:
        taken = orjson.loads(cipher.decrypt(raw[:_NONCE], raw[_NONCE:], run_id.encode()))
    except InvalidTag:  # sealed under a key since deleted and made again: as gone
        return opened
    for path, value in taken:
        _put(opened, path, value)
    return opened


def open_envelope(envelope: Envelope, keyring: Keyring = KEYRING) -> Envelope:
    if SEALED not in envelope.data:
        return envelope
    return envelope.model_copy(update={"data": open_data(envelope.data, envelope.correlation_id, keyring)})


def sealed_runs(rows: Iterable[tuple[dict[str, Any], str]]) -> set[str]:
    """The runs of (payload, run id) pairs whose payload is sealed."""
    return {run_id for data, run_id in rows if SEALED in data}


def erase(data: dict[str, Any], paths: Sequence[Sequence[str]]) -> tuple[dict[str, Any], list[Any]]:
    """`data` with the fields at `paths` erased (copied where changed, never edited), and [path, value]
    of each field erased."""
    taken: list[Any] = []
    for path in paths:
        data = _erased_at(data, path, [], taken)
    return data, taken


def _erased_at(node: Any, path: Sequence[str], at: list[Any], taken: list[Any]) -> Any:
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        keys: Iterable[Any] = list(node) if head == "*" else ([head] if head in node else [])
    elif isinstance(node, list) and head == "*":
        keys = range(len(node))
    else:
        return node
    copy: Any = dict(node) if isinstance(node, dict) else list(node)
    for key in keys:
        value = node[key]
        if rest:
            copy[key] = _erased_at(value, rest, [*at, key], taken)
        elif (blank := _blank(value)) is not None and value != blank:
            taken.append([[*at, key], value])
            copy[key] = blank
    return copy


def _blank(value: Any) -> Any:
    """What a field reads as once erased: a text the marker, a list or object empty; other values (None,
    numbers) are left as they are."""
    if isinstance(value, str):
        return ERASED
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return None


def _put(node: Any, path: list[Any], value: Any) -> None:
    """Put `value` back at `path` in a payload being opened, copying each container on the way (the
    erased payload's containers may be shared with the stored row)."""
    for key in path[:-1]:
        child = node[key]
        node[key] = child = dict(child) if isinstance(child, dict) else list(child)
        node = child
    node[path[-1]] = value
