"""`jipsa`: the operator's and the person's command line.

The platform owns only the entry point; each service contributes its commands
through the `jipsa.commands` entry-point group (see pyproject.toml), so the
platform never imports a service and a service's commands live beside its code.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Jipsa (집사): operate and ask.")


def _register_contributed_commands() -> None:
    for entry in sorted(entry_points(group="jipsa.commands"), key=lambda e: e.name):
        contributed = entry.load()
        if isinstance(contributed, typer.Typer):
            app.add_typer(contributed, name=entry.name)
        else:
            app.command(name=entry.name)(contributed)


_register_contributed_commands()
