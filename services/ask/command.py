"""`jipsa ask "강남구 아파트 전세 시세"`: ask through a running gateway and watch the run in the terminal.

It creates a session, opens the session's WebSocket, sends the query, shows the plan, the todos moving
(a live table) and the answer, its Markdown rendered (tables as tables) on a terminal and as written
when the output is piped; `--json` prints one JSON object instead. `--approve` asks for the plan's
approval and gives it when `plan_ready` says the run waits (`requires_approval`). When the run asks for
something (a contract's missing fields), `--answer field=value` gives it up front, a terminal prompts
for the rest, and otherwise the run is left waiting and reported as `input_required` with its questions.
The documents a run makes (a lease, a sale contract, a loan checklist) are listed with the answer, and
`--save DIR` downloads them there with the session's token (the only one that may read them).
The session is the person's kept in the person file (person.py: made on the first question, so Jipsa
remembers what they say and `jipsa memory` shows it); `--anonymous` asks in a session of nobody.
Every message received is read through the published protocol (contracts/websocket.py) and every frame
sent is built from it. Exit status: 0 for an answer, guidance or a run waiting for input, 1 when the run
ended in error, 2 when the gateway cannot be reached (or speaks another protocol), 3 on timeout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
import websockets
from pydantic import ValidationError
from rich.console import Console
from rich.prompt import Prompt

from contracts.api import RunEvents
from contracts.websocket import (
    STORE_UNAVAILABLE_CODE,
    ErrorMessage,
    Frame,
    InputRequestMessage,
    InputResponseFrame,
    InterruptResponseFrame,
    OffProtocol,
    PlanReadyMessage,
    QueryFrame,
    describe,
    read_message,
    sent,
)
from services.ask.person import KeptPerson, UnreadablePersonFile, new_session
from services.ask.screen import Screen, waits_for_approval
from services.ask.view import RunView, summary

DEFAULT_URL = "http://127.0.0.1:8000"
RUN_ENDED_IN_ERROR, GATEWAY_UNREACHABLE, TIMED_OUT = 1, 2, 3


class Refused(Exception):
    """The gateway refused the query (too long, empty...)."""


AskPerson = Callable[[dict[str, Any]], str]  # a question -> what the person types


def answers_for(
    request: dict[str, Any], given: dict[str, str], ask_person: AskPerson | None
) -> dict[str, str]:
    """The answers to a run's questions: those given up front, the rest asked of the person if we can."""
    answers = {q["field"]: given[q["field"]] for q in request["questions"] if q["field"] in given}
    if ask_person is not None:
        for question in request["questions"]:
            if question["field"] not in answers and (typed := ask_person(question).strip()):
                answers[question["field"]] = typed
    return answers


async def converse(
    url: str,
    query: str,
    approve: bool,
    screen: Screen,
    given: dict[str, str] | None = None,
    ask_person: AskPerson | None = None,
    save_to: Path | None = None,
    kept: KeptPerson | None = None,
) -> tuple[RunView, str, int]:
    """One question, start to answer: (what was told, the session id, how many events the run has);
    with `save_to`, the run's documents are downloaded there; with `kept`, the session is that person's."""
    try:
        asking = QueryFrame(type="query", query=query, require_approval=approve)
    except ValidationError as invalid:  # what the gateway would refuse, refused before asking it
        raise Refused("invalid_frame", describe(invalid)) from None
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        session = await new_session(http, kept)
        view, answered = RunView(), dict[str, str]()
        socket_url = f"{url.replace('http', 'ws', 1)}/ws/{session.session_id}?token={session.token}"
        async with websockets.connect(socket_url) as socket:
            await socket.send(_text(asking))
            async for raw in socket:
                message = read_message(raw)
                if isinstance(message, ErrorMessage) and message.code != STORE_UNAVAILABLE_CODE:
                    raise Refused(message.code, message.message)
                shown = sent(message)
                view.apply(shown)
                screen.show(view, shown)
                mine = message.run_id == view.run_id
                if isinstance(message, PlanReadyMessage) and mine and approve and waits_for_approval(shown):
                    approval = InterruptResponseFrame(
                        type="interrupt_response", run_id=view.run_id, action="approve"
                    )
                    await socket.send(_text(approval))
                if isinstance(message, InputRequestMessage) and mine:
                    answers = answers_for(shown, given or {}, ask_person)
                    if not answers or answers.items() <= answered.items():
                        break  # nothing new to answer with: the run waits for the person
                    frame = InputResponseFrame(
                        type="input_response", run_id=message.run_id, step_id=message.step_id, answers=answers
                    )
                    await socket.send(_text(frame))
                    answered.update(answers)
                if view.response is not None:
                    break
        headers = {"Authorization": f"Bearer {session.token}"}
        events = RunEvents.model_validate(
            (await http.get(f"/api/runs/{view.run_id}/events", headers=headers)).raise_for_status().json()
        )
        if save_to is not None:
            view.saved = await save_documents(http, headers, view.documents, save_to)
    return view, session.session_id, len(events.events)


def _text(frame: Frame) -> str:
    return frame.model_dump_json(exclude_none=True)


async def save_documents(
    http: httpx.AsyncClient, headers: dict[str, str], documents: list[dict[str, Any]], folder: Path
) -> list[str]:
    """Each document into `folder` under its own name (a path in the name is dropped); the paths saved."""
    saved = []
    for doc in documents:
        reply = await http.get(f"/api/documents/{doc['artifact_id']}", headers=headers)
        target = folder / Path(doc["name"]).name
        await asyncio.to_thread(_write, target, reply.raise_for_status().content)
        saved.append(str(target))
    return saved


def _write(target: Path, content: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)


def parse_answers(pairs: list[str] | None) -> dict[str, str]:
    answers = {}
    for pair in pairs or []:
        field_name, sep, value = pair.partition("=")
        if not sep or not field_name.strip() or not value.strip():
            raise typer.BadParameter(f"{pair!r}: expected field=value")
        answers[field_name.strip()] = value.strip()
    return answers


def prompter(as_json: bool) -> AskPerson | None:
    """Ask at the terminal only when a person is there to answer and the output is not for a program."""
    if as_json or not sys.stdin.isatty():
        return None
    return lambda question: Prompt.ask(
        question["label"] + (f" ({question['hint']})" if question.get("hint") else "")
    )


def ask(
    query: Annotated[str, typer.Argument(help="the question, e.g. 강남구 아파트 전세 시세")],
    url: Annotated[str, typer.Option(envvar="JIPSA_GATEWAY_URL", help="the gateway")] = DEFAULT_URL,
    approve: Annotated[bool, typer.Option("--approve", help="ask for plan approval and approve it")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object, nothing else")] = False,
    timeout: Annotated[float, typer.Option(min=1, help="seconds to wait for the answer")] = 120.0,
    answer: Annotated[
        list[str] | None, typer.Option(help="field=value for a question the run may ask (repeatable)")
    ] = None,
    save: Annotated[
        Path | None, typer.Option(help="download the documents the run makes (contracts, checklists) here")
    ] = None,
    anonymous: Annotated[
        bool,
        typer.Option(
            "--anonymous", help="ask as nobody: nothing remembered or recalled, no person file read"
        ),
    ] = False,
) -> None:
    """Ask Jipsa a question and watch it being answered."""
    console = Console(stderr=True)
    screen = Screen(None if as_json else Console())
    kept = None if anonymous else KeptPerson.at(url)
    try:
        first_time = kept is not None and kept.token() is None
        asking = converse(
            url.rstrip("/"), query, approve, screen, parse_answers(answer), prompter(as_json), save, kept
        )
        view, session_id, events = asyncio.run(asyncio.wait_for(asking, timeout))
    except UnreadablePersonFile as unreadable:
        console.print(f"[red]cannot read the person file {unreadable} (--anonymous asks without it)[/]")
        raise typer.Exit(RUN_ENDED_IN_ERROR) from None
    except TimeoutError:
        console.print(f"[red]no answer within {timeout:g} s[/]")
        raise typer.Exit(TIMED_OUT) from None
    except Refused as refused:
        console.print(f"[red]the gateway refused the question: {refused.args[1]}[/]")
        raise typer.Exit(RUN_ENDED_IN_ERROR) from None
    except (
        httpx.HTTPError,
        OSError,
        websockets.WebSocketException,
        ValidationError,
        OffProtocol,
    ) as unreachable:
        console.print(f"[red]cannot talk to the gateway at {url}: {unreachable}[/]")
        raise typer.Exit(GATEWAY_UNREACHABLE) from None
    finally:
        screen.close()
    if as_json:
        print(json.dumps(summary(view, session_id, events), ensure_ascii=False, indent=2))
    elif view.saved:
        console.print("\n".join(f"저장: {path}" for path in view.saved))
    if first_time and kept is not None and not as_json:
        console.print(
            f"[dim]집사가 말씀하신 것을 기억해 다음 질문에 씁니다 ({kept.path}). "
            "`jipsa memory`로 보고 지울 수 있고, `--anonymous`로 기억 없이 물을 수 있습니다.[/]"
        )
    if view.failed:
        raise typer.Exit(RUN_ENDED_IN_ERROR)
