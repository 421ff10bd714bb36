"""`jipsa memory`: what Jipsa remembers of the person `jipsa ask` asks as (person.py), and forgetting it.

    jipsa memory                    the items: id, kind, value, when it was said, the run it came from
    jipsa memory forget ID          forget one item
    jipsa memory forget --all       모두 잊기: every item remembered, never used again
                                    (asks first, unless --yes)
    jipsa memory off | on           stop or start remembering (off: nothing new is remembered and
                                    nothing remembered is used)

Each talks to the gateway over REST with the person's token (GET/DELETE /api/people/me/memory[/ID],
PUT /api/people/me/remembering) and reads the answers through the published models (contracts/api.py).
On a terminal the list is a table in Korean; piped, it is one tab-separated line per item (id, kind,
value, said_at, run_id), for a program; `--json` prints the gateway's answer as it is. Exit status: 0
done, 1 refused (no such item, a person the gateway does not know, 모두 잊기 not confirmed), 2 when the
gateway cannot be reached.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import httpx
import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from contracts.api import MemoryChanged, PersonMemory
from services.ask.person import KeptPerson, UnreadablePersonFile, bearer

DEFAULT_URL = "http://127.0.0.1:8000"
REFUSED, GATEWAY_UNREACHABLE = 1, 2
WIDE_TERMINAL = 130  # columns: enough for whole run ids beside the values
KINDS = {
    "fact": "사실",
    "place": "지역·단지",
    "property_type": "주택 유형",
    "deal_type": "거래 유형",
    "conversation": "지난 대화",
}
FORGET_ALL = (
    "집사가 기억하는 것을 모두 잊을까요? 기억한 내용은 모두 지워져 다음 상담에 쓰지 않으며, "
    "되돌릴 수 없습니다."
)

NOBODY_YET = (
    "아직 기억하는 것이 없습니다: {path}에 이 게이트웨이({url})의 사람이 없습니다. "
    "`jipsa ask`로 처음 물을 때 만듭니다."
)
T = TypeVar("T")
Url = Annotated[str, typer.Option(envvar="JIPSA_GATEWAY_URL", help="the gateway")]

memory_app = typer.Typer(
    help="What Jipsa remembers of you (the person `jipsa ask` asks as), and forgetting it.",
    invoke_without_command=True,
    no_args_is_help=False,
)


class Refused(Exception):
    """What the gateway said no to, in the person's words."""


@memory_app.callback()
def memory(
    context: typer.Context,
    url: Url = DEFAULT_URL,
    as_json: Annotated[bool, typer.Option("--json", help="print the gateway's answer as JSON")] = False,
) -> None:
    """List what Jipsa remembers: each item's id, kind, value, when it was said and its run."""
    if context.invoked_subcommand is not None:
        return
    shown = _talk(url, lambda http, token: _memory_of(http, token))
    if shown is None:
        return _nobody_yet(url, as_json)
    if as_json:
        print(shown.model_dump_json(indent=2))
    else:
        _print_memory(shown, Console())


@memory_app.command()
def forget(
    item_id: Annotated[str | None, typer.Argument(metavar="ID", help="the item's id, as listed")] = None,
    forget_all: Annotated[bool, typer.Option("--all", help="모두 잊기: everything Jipsa remembers")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask before forgetting everything")] = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Forget one item (ID), or everything (--all)."""
    if (item_id is None) == (not forget_all):
        raise typer.BadParameter("name one item's ID, or --all (not both)")
    if forget_all:
        if not yes:
            typer.confirm(FORGET_ALL, abort=True)
        _change(url, "DELETE", "/api/people/me/memory", "모두 잊었습니다.")
    else:
        _change(url, "DELETE", f"/api/people/me/memory/{item_id}", f"잊었습니다: {item_id}")


@memory_app.command()
def off(url: Url = DEFAULT_URL) -> None:
    """Stop remembering: nothing new is remembered, and nothing remembered is used."""
    told = "기억하기를 껐습니다: 새로 기억하지 않고, 기억한 것도 답변에 쓰지 않습니다."
    _change(url, "PUT", "/api/people/me/remembering", told, {"remembering": False})


@memory_app.command()
def on(url: Url = DEFAULT_URL) -> None:
    """Remember again what you say, and use it."""
    _change(url, "PUT", "/api/people/me/remembering", "기억하기를 켰습니다.", {"remembering": True})


def _change(url: str, method: str, path: str, told: str, body: dict[str, Any] | None = None) -> None:
    def send(http: httpx.Client, token: str) -> MemoryChanged:
        reply = http.request(method, path, headers=bearer(token), json=body)
        if reply.status_code == httpx.codes.NOT_FOUND:
            raise Refused(f"기억 중에 그런 항목이 없습니다: {path.rsplit('/', 1)[-1]}")
        return MemoryChanged.model_validate(_checked(reply).json())

    if _talk(url, send) is None:
        Console(stderr=True).print(f"[red]{NOBODY_YET.format(path=KeptPerson.at(url).path, url=url)}[/]")
        raise typer.Exit(REFUSED)
    Console().print(told)


def _talk(url: str, call: Callable[[httpx.Client, str], T]) -> T | None:
    """`call` with the kept person's token; None when no person is kept for this gateway. A refusal or
    a gateway out of reach ends the command with its exit status."""
    errors = Console(stderr=True)
    kept = KeptPerson.at(url)
    try:
        token = kept.token()
        if token is None:
            return None
        with httpx.Client(base_url=kept.gateway, timeout=10) as http:
            return call(http, token)
    except (Refused, UnreadablePersonFile) as refused:
        errors.print(f"[red]{refused}[/]")
        raise typer.Exit(REFUSED) from None
    except (httpx.HTTPError, OSError, ValidationError) as unreachable:
        errors.print(f"[red]cannot talk to the gateway at {url}: {unreachable}[/]")
        raise typer.Exit(GATEWAY_UNREACHABLE) from None


def _memory_of(http: httpx.Client, token: str) -> PersonMemory:
    reply = http.get("/api/people/me/memory", headers=bearer(token))
    return PersonMemory.model_validate(_checked(reply).json())


def _checked(reply: httpx.Response) -> httpx.Response:
    if reply.status_code == httpx.codes.UNAUTHORIZED:
        raise Refused(
            "이 게이트웨이는 저장된 사람을 알지 못합니다 (저장소가 새로 만들어졌거나 다른 곳의 사람입니다). "
            "다음 `jipsa ask`가 새 사람으로 묻습니다."
        )
    return reply.raise_for_status()


def _nobody_yet(url: str, as_json: bool) -> None:
    if as_json:
        print('{"person_id": null, "remembering": true, "items": [], "forgotten_at": null}')
    else:
        Console().print(NOBODY_YET.format(path=KeptPerson.at(url).path, url=url))


def _print_memory(memory: PersonMemory, console: Console) -> None:
    if not console.is_terminal:  # for a program: a line per item, the codes and times as the gateway says
        for i in memory.items:
            print("\t".join((i.id, i.kind, i.value, i.said_at, i.run_id)))
        return
    off = "[yellow]꺼짐[/] (새로 기억하지 않고, 기억한 것도 쓰지 않습니다)"
    console.print(f"기억하기: {'켜짐' if memory.remembering else off}")
    if not memory.items:
        gone = f" ({_when(memory.forgotten_at)}에 모두 잊었습니다)" if memory.forgotten_at else ""
        console.print(f"집사가 기억하는 것이 없습니다.{gone}")
        return
    # A narrow terminal shows a run by its first 8 characters and a time without its year, so the value
    # keeps room to be read; the ids stay whole, to be copied into `jipsa memory forget ID`.
    wide = console.width >= WIDE_TERMINAL
    table = Table(title="집사가 기억하는 것", title_justify="left")
    table.add_column("ID", no_wrap=True)
    table.add_column("종류", no_wrap=True)
    table.add_column("내용", overflow="fold")
    table.add_column("말한 때", no_wrap=True)
    table.add_column("실행", no_wrap=True)
    order = list(KINDS)
    for i in sorted(memory.items, key=lambda i: (order.index(i.kind), i.said_at)):
        when = _when(i.said_at, "%Y-%m-%d %H:%M" if wide else "%m-%d %H:%M")
        table.add_row(i.id, KINDS[i.kind], i.value, when, i.run_id if wide else i.run_id[:8])
    console.print(table)
    console.print("[dim]jipsa memory forget ID: 하나 잊기 · jipsa memory forget --all: 모두 잊기[/]")


def _when(iso: str, form: str = "%Y-%m-%d %H:%M") -> str:
    """The time in this machine's zone, to the minute."""
    return datetime.fromisoformat(iso).astimezone().strftime(form)
