"""infra/CONFIGURATION.md, the configuration reference, generated from the settings classes.

    python -m services.platform.config_reference           # write it
    python -m services.platform.config_reference --check   # exit 1 when it differs from the code (make lint)

Every pydantic-settings class under services/ is found by importing the services' modules and walking
BaseSettings' subclasses, so a class added anywhere is listed without touching this module; the
`jipsa` commands' own variables come from the CLI's options. A field without a description stops the
generation: a variable nobody explains is not configuration a person can read. (The platform imports no
service; this tool, run by `make lint`, loads them at run time only to read their settings, as the CLI
loads their commands through entry points.)
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings

import services
from services.platform.settings import REPO_ROOT, InfraSettings, PoolSettings

REFERENCE = REPO_ROOT / "infra" / "CONFIGURATION.md"
PROCESSES = REPO_ROOT / "infra" / "processes.toml"
COMPOSE = REPO_ROOT / "docker-compose.yml"
# Conventions honoured although no settings class of ours reads them.
STANDARD_VARIABLES = {
    "NO_COLOR": "Set (to anything): `make run` does not colour its processes' tags.",
    "JIPSA_HOME": "The folder where `jipsa ask` and `jipsa memory` keep the person they ask as "
    "(person.json, one person per gateway); unset: $XDG_CONFIG_HOME/jipsa, else ~/.config/jipsa.",
    "XDG_CONFIG_HOME": "Where `jipsa ask` keeps its person file when JIPSA_HOME is unset "
    "($XDG_CONFIG_HOME/jipsa/person.json).",
    "OTEL_EXPORTER_OTLP_*": "The OpenTelemetry exporters' own settings (headers, protocol, per-signal "
    "endpoints), read by the exporters when OTEL_EXPORTER_OTLP_ENDPOINT is set.",
}
# Connections a process holds outside its pool: the publisher's and projector's wake-ups on appends
# and the gateway's on projections, each one LISTEN connection (services/platform/wakeup.py).
LISTENERS = {"publisher": 1, "projector": 1, "gateway": 1}
# Pools sized in code below JIPSA_DB_POOL_MAX: the publisher reads the log in batches, alone.
FIXED_POOL_MAX = {"publisher": 2}
POSTGRES_MAX_CONNECTIONS = 100  # Postgres's default, compose's; the embedded one of `make run` has 200
POSTGRES_RESERVED = 3  # superuser_reserved_connections


@dataclass(frozen=True)
class Variable:
    name: str
    type: str
    default: str
    meaning: str


class Undescribed(ValueError):
    """Settings fields without a description: the reference cannot say what they mean."""


# --- discovery ---------------------------------------------------------------------------------------------


def settings_classes() -> list[type[BaseSettings]]:
    """Every settings class defined under services/."""
    for module in pkgutil.walk_packages(services.__path__, "services."):
        if not module.name.endswith(".__main__"):  # entry points: running, not defining
            importlib.import_module(module.name)
    # A class narrowing another (ResolvedInfra) reads that class's variables, listed there already.
    found = {
        cls
        for cls in _subclasses(BaseSettings)
        if cls.__module__.startswith("services.") and BaseSettings in cls.__bases__
    }
    return sorted(found, key=_reading_order)


def _reading_order(cls: type) -> tuple[bool, bool, str, int]:
    """Where the servers are first, then what every process reads, then each service's; in source order."""
    module, line = cls.__module__, inspect.getsourcelines(cls)[1]
    return (module != InfraSettings.__module__, not module.startswith("services.platform."), module, line)


def _subclasses(cls: type) -> Iterator[type]:
    subclasses: list[type] = cls.__subclasses__()
    for sub in subclasses:
        yield sub
        yield from _subclasses(sub)


def variables_of(cls: type[BaseSettings]) -> list[Variable]:
    undescribed = [f"{cls.__qualname__}.{name}" for name, f in cls.model_fields.items() if not f.description]
    if undescribed:
        raise Undescribed(f"settings without a description (add Field(description=...)): {undescribed}")
    return [
        Variable(env_name(cls, name, f), type_of(f), default_of(f), f.description or "")
        for name, f in cls.model_fields.items()
    ]


def env_name(cls: type[BaseSettings], name: str, field: FieldInfo) -> str:
    alias = field.validation_alias or field.alias
    if isinstance(alias, str):
        return alias.upper()
    return f"{cls.model_config.get('env_prefix', '')}{name}".upper()


def cli_variables() -> list[tuple[str, str, str, str]]:
    """(variable, command, default, help) of every `jipsa` option that reads one."""
    import typer.main

    from services.platform.cli import app

    found: list[tuple[str, str, str, str]] = []

    def walk(command: Any, path: str) -> None:
        for param in command.params:
            for variable in [param.envvar] if isinstance(param.envvar, str) else param.envvar or []:
                found.append((variable, f"{path} --{param.name}", str(param.default), param.help or ""))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "jipsa")
    return found


# --- how a field reads -------------------------------------------------------------------------------------


def type_of(field: FieldInfo) -> str:
    bounds = [_bound(m) for m in field.metadata]
    return " ".join([_type_name(field.annotation), *(b for b in bounds if b)])


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, UnionType):
        return " or ".join(_type_name(a) for a in args if a is not NoneType)
    if origin is Literal:
        return " / ".join(str(a) for a in args)
    if origin is not None:
        return f"{origin.__name__}[{', '.join(_type_name(a) for a in args)}]"
    return {"SecretStr": "str (secret)", "Path": "path"}.get(annotation.__name__, annotation.__name__)


def _bound(metadata: Any) -> str | None:
    if isinstance(metadata, annotated_types.Ge):
        return f"≥ {metadata.ge}"
    if isinstance(metadata, annotated_types.Gt):
        return f"> {metadata.gt}"
    if isinstance(metadata, annotated_types.Le):
        return f"≤ {metadata.le}"
    pattern = getattr(metadata, "pattern", None)
    return f"matching `{pattern}`" if pattern else None


def default_of(field: FieldInfo) -> str:
    """The default as the reference shows it: a value in code type, or what its absence means."""
    if field.default_factory is not None:
        return "see meaning"
    value = field.default
    if value is PydanticUndefined:
        return "required"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path):
        return f"`{value.relative_to(REPO_ROOT).as_posix() if value.is_relative_to(REPO_ROOT) else value}`"
    return f"`{json.dumps(value) if isinstance(value, dict | list) else value}`"


# --- the document ------------------------------------------------------------------------------------------


def render() -> str:
    lines = [
        "# Configuration",
        "",
        "Every environment variable Jipsa's processes read, with its type, default and meaning. Generated "
        "from the settings classes by `python -m services.platform.config_reference` (do not edit; "
        "`make lint` checks it is current). Each process reads its settings once, at start-up; `make run` "
        "passes its own environment to every process it starts.",
        "",
    ]
    for cls in settings_classes():
        lines += _class_section(cls)
    lines += _cli_section() + _standard_section() + connection_budget()
    return "\n".join(lines).rstrip("\n") + "\n"


def _class_section(cls: type[BaseSettings]) -> list[str]:
    module = Path(sys.modules[cls.__module__].__file__ or "").relative_to(REPO_ROOT).as_posix()
    summary = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    lines = [f"## {cls.__qualname__} (`{module}`)", ""]
    lines += [summary, ""] if summary else []
    lines += ["| Variable | Type | Default | Meaning |", "|---|---|---|---|"]
    for v in variables_of(cls):
        lines.append(f"| `{v.name}` | {_cell(v.type)} | {_cell(v.default)} | {_cell(v.meaning)} |")
    return [*lines, ""]


def _cli_section() -> list[str]:
    lines = ["## The `jipsa` commands", "", "| Variable | Option | Default | Meaning |", "|---|---|---|---|"]
    lines += [f"| `{v}` | `{o}` | `{d}` | {_cell(h)} |" for v, o, d, h in cli_variables()]
    return [*lines, ""]


def _standard_section() -> list[str]:
    lines = ["## Conventions honoured", "", "| Variable | Meaning |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(meaning)} |" for name, meaning in STANDARD_VARIABLES.items()]
    return [*lines, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# --- the connection budget ---------------------------------------------------------------------------------


def replicas() -> tuple[dict[str, int], dict[str, int]]:
    """Processes and their replicas: `make run`'s (infra/processes.toml) and compose's (same names)."""
    import yaml  # a dev dependency: only this generator (make lint) needs it

    run = {p["name"]: p.get("replicas", 1) for p in tomllib.loads(PROCESSES.read_text())["process"]}
    compose_services = yaml.safe_load(COMPOSE.read_text())["services"]
    compose = {name: compose_services[name].get("deploy", {}).get("replicas", 1) for name in run}
    return run, compose


def connections(process: str, pool_max: int) -> int:
    return FIXED_POOL_MAX.get(process, pool_max) + LISTENERS.get(process, 0)


def connection_budget() -> list[str]:
    pool_max = PoolSettings.model_fields["max_size"].default
    run, compose = replicas()
    total_run = sum(n * connections(p, pool_max) for p, n in run.items())
    total_compose = sum(n * connections(p, pool_max) for p, n in compose.items())
    available = POSTGRES_MAX_CONNECTIONS - POSTGRES_RESERVED
    scaled = total_compose + 4 * pool_max  # two teams from compose's 2 replicas to 4
    lines = [
        "## Connection budget",
        "",
        "Postgres connections = the sum, over every process replica, of its pool's most "
        "(`JIPSA_DB_POOL_MAX`, or less where the code sizes it) plus its LISTEN connections. "
        f"With the defaults (`JIPSA_DB_POOL_MAX={pool_max}`):",
        "",
        "| Process | Pool max | LISTEN | Per replica | `make run` replicas | compose replicas |",
        "|---|---|---|---|---|---|",
    ]
    for process in run:
        pool = FIXED_POOL_MAX.get(process, pool_max)
        lines.append(
            f"| {process} | {pool} | {LISTENERS.get(process, 0)} | {connections(process, pool_max)} "
            f"| {run[process]} | {compose[process]} |"
        )
    lines += [
        f"| **total** | | | | **{total_run}** | **{total_compose}** |",
        "",
        "Add a few short-lived ones: migrations, each `jipsa` command (1), the search service's seeding "
        f"on a fresh database (1). Postgres allows `max_connections` less {POSTGRES_RESERVED} reserved for "
        f"superusers: {available} with the default {POSTGRES_MAX_CONNECTIONS}, compose's (`make run`'s "
        f"embedded Postgres allows 200). Each more replica of a worker costs `JIPSA_DB_POOL_MAX` "
        f"({pool_max}): scaling two teams to 4 replicas in compose adds 4 × {pool_max}, "
        f"{scaled} in all, over {available}. To stay under it:",
        "",
        f"- lower `JIPSA_DB_POOL_MAX` on the scaled services: at {pool_max // 2} for those two teams' 8 "
        f"replicas, {scaled - 8 * (pool_max - pool_max // 2)} in all (a pool smaller than a consumer's fetch "
        "batch makes messages wait for a connection, not fail);",
        "- or raise Postgres's `max_connections` (each connection costs the server memory);",
        "- not a transaction-mode pooler (PgBouncer) in front: the LISTEN connections above need a "
        "session of their own, and they use the same `DATABASE_URL`.",
    ]
    return lines


# --- the command -------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.platform.config_reference")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is stale")
    check = parser.parse_args(argv).check
    text = render()
    current = REFERENCE.read_text() if REFERENCE.exists() else None
    if check:
        if current != text:
            print(f"{REFERENCE.relative_to(REPO_ROOT)} is stale: run `{parser.prog}`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        REFERENCE.write_text(text)
        print(f"wrote {REFERENCE.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
