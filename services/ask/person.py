"""The person the terminal asks as: a pseudonymous id and its token, made by the gateway (`POST
/api/people`) the first time `jipsa ask` asks it, and kept in a file of the person's own:

    $JIPSA_HOME/person.json                        when JIPSA_HOME is set
    $XDG_CONFIG_HOME/jipsa/person.json             else, when XDG_CONFIG_HOME is set
    ~/.config/jipsa/person.json                    else

The file holds one person per gateway URL ({"people": {url: {"person_id", "token"}}}): a token opens a
person only in the store that made it, so a terminal that talks to two gateways is a person at each.
The token is a secret (it opens what Jipsa remembers), so the file is written readable by its owner
only (0600, in a 0700 folder), whole or not at all (a temporary file renamed over it).

A session made with the token (`Authorization: Bearer`) is the person's. A kept token the gateway
refuses (401: its database was reset, or the person made elsewhere) is replaced by a new person's.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from contracts.api import PersonCreated, SessionCreated

FILE_NAME = "person.json"


def person_file() -> Path:
    if home := os.environ.get("JIPSA_HOME"):
        return Path(home).expanduser() / FILE_NAME
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config).expanduser() / "jipsa" / FILE_NAME


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass(frozen=True)
class KeptPerson:
    """The person kept in `path` for the gateway at `gateway`."""

    path: Path
    gateway: str

    @classmethod
    def at(cls, gateway: str, path: Path | None = None) -> KeptPerson:
        return cls(path or person_file(), gateway.rstrip("/"))

    def token(self) -> str | None:
        kept = self._people().get(self.gateway)
        token = kept.get("token") if isinstance(kept, dict) else None
        return token if isinstance(token, str) and token else None

    def keep(self, person: PersonCreated) -> None:
        people = {**self._people(), self.gateway: person.model_dump(mode="json")}
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        written = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        descriptor = os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({"people": people}, file, ensure_ascii=False, indent=2)
        os.replace(written, self.path)

    def _people(self) -> dict[str, Any]:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as unreadable:
            raise UnreadablePersonFile(f"{self.path}: {unreadable}") from None
        people = stored.get("people") if isinstance(stored, dict) else None
        return people if isinstance(people, dict) else {}


class UnreadablePersonFile(Exception):
    """The person file exists but is not ours to read (not JSON, no permission): it is left as it is."""


async def new_session(http: httpx.AsyncClient, kept: KeptPerson | None) -> SessionCreated:
    """A session of the kept person (made now if none is kept, or if the gateway refuses the one that
    is); without `kept`, a session of nobody."""
    if kept is None:
        return SessionCreated.model_validate((await http.post("/api/sessions")).raise_for_status().json())
    token = await asyncio.to_thread(kept.token) or await _new_person(http, kept)
    reply = await http.post("/api/sessions", headers=bearer(token))
    if reply.status_code == httpx.codes.UNAUTHORIZED:
        reply = await http.post("/api/sessions", headers=bearer(await _new_person(http, kept)))
    return SessionCreated.model_validate(reply.raise_for_status().json())


async def _new_person(http: httpx.AsyncClient, kept: KeptPerson) -> str:
    person = PersonCreated.model_validate((await http.post("/api/people")).raise_for_status().json())
    await asyncio.to_thread(kept.keep, person)
    return person.token
