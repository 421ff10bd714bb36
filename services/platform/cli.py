"""`jipsa`: the operator's and the person's command line.

The platform owns only the entry point; each service contributes its commands
through the `jipsa.commands` entry-point group (see pyproject.toml), so the
platform never imports a service and a service's commands live beside its code.

A server out of reach is the operator's situation, not a bug: every command that meets one
ends with one line naming the server (its URL without the password) and exit code 3, not a
traceback. Any other error keeps its traceback.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from typing import Any

import nats.errors
import typer

from services.platform.outages import Unreachable, first_outage

UNREACHABLE_EXIT = 3


class JipsaCli(typer.Typer):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as error:
            outage = first_outage(error)
            if outage is None:
                raise
            print(f"jipsa: {outage_line(outage)}", file=sys.stderr)
            sys.exit(UNREACHABLE_EXIT)


def outage_line(outage: BaseException) -> str:
    """A connection refused at the start names its URL; one lost mid-command says what it heard."""
    if isinstance(outage, Unreachable):
        return str(outage)
    server = "메시지 버스(NATS)" if isinstance(outage, nats.errors.Error) else "저장소(Postgres)"
    heard = next(iter(str(outage).splitlines()), type(outage).__name__)
    return f"{server}와의 연결이 끊겼습니다: {heard}"


app = JipsaCli(no_args_is_help=True, add_completion=False, help="Jipsa (집사): operate and ask.")


def _register_contributed_commands() -> None:
    for entry in sorted(entry_points(group="jipsa.commands"), key=lambda e: e.name):
        contributed = entry.load()
        if isinstance(contributed, typer.Typer):
            app.add_typer(contributed, name=entry.name)
        else:
            app.command(name=entry.name)(contributed)


_register_contributed_commands()
