"""`jipsa ask` as a person and `jipsa memory` against the whole system in-process (real NATS and
Postgres), through the `jipsa` command as installed (services.platform.cli's app, which loads every
service's commands from the `jipsa.commands` entry points): the first question makes the person and
keeps its token in $JIPSA_HOME/person.json; a fact said then answers a later question and `--anonymous`
never sees it; `jipsa memory` lists the items with their runs, forgets one, turns remembering off and
on, and forgets everything only when confirmed; a kept token the gateway refuses is replaced.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from services.platform.cli import app
from tests.integration.gateway_helpers import Gateway
from tests.integration.test_run_end_to_end import jipsa

pytestmark = pytest.mark.integration

STATED = "연봉 3800이에요. 관악구 아파트 전세 알아보고 있어요"
ASKED = "전세자금대출 한도 얼마나 나와요?"
RECALLED = "지난번에 말씀하신 연소득 3,800만원 기준"


class Terminal:
    """`jipsa ...` run with JIPSA_HOME set to a folder of the test's own, against one gateway."""

    def __init__(self, gateway: Gateway, home: Path) -> None:
        self.gateway, self.home = gateway, home

    async def __call__(self, *args: str, typed: str | None = None) -> Result:
        env = {"JIPSA_HOME": str(self.home), "JIPSA_GATEWAY_URL": self.gateway.http_url}
        # A command runs its own event loop (`ask`) or blocks on HTTP (`memory`): a thread of its own.
        return await asyncio.to_thread(CliRunner().invoke, app, list(args), input=typed, env=env)

    async def ask(self, query: str, *options: str) -> dict:
        done = await self("ask", "--json", "--timeout", "120", *options, query)
        assert done.exit_code == 0, done.output
        return json.loads(done.stdout)

    async def memory(self) -> dict:
        done = await self("memory", "--json")
        assert done.exit_code == 0, done.output
        return json.loads(done.stdout)

    @property
    def person_file(self) -> Path:
        return self.home / "person.json"

    def kept(self) -> dict:
        return json.loads(self.person_file.read_text())["people"][self.gateway.http_url]


async def test_a_person_at_the_terminal_is_remembered_shown_and_forgotten(
    store, infra, tmp_path: Path
) -> None:
    async with jipsa(store, infra) as gateway:
        terminal = Terminal(gateway, tmp_path / "home")
        nobody_yet = await terminal("memory")
        assert nobody_yet.exit_code == 0 and "아직 기억하는 것이 없습니다" in nobody_yet.stdout

        said = await terminal.ask(STATED)
        assert stat.S_IMODE(terminal.person_file.stat().st_mode) == 0o600  # the token is a secret
        token = terminal.kept()["token"]

        listed = await terminal("memory")  # not a terminal: a tab-separated line per item
        rows = [line.split("\t") for line in listed.stdout.splitlines()]
        assert listed.exit_code == 0 and all(len(row) == 5 for row in rows), listed.output
        by_kind = {(kind, value) for _, kind, value, _, _ in rows}
        assert {("fact", "연소득 3,800만원"), ("place", "관악구"), ("conversation", STATED)} <= by_kind
        assert {run for *_, run in rows} == {said["run_id"]}

        later = await terminal.ask(ASKED)
        assert RECALLED in later["response"]["answer"], later["response"]["answer"]
        assert terminal.kept()["token"] == token  # the same person asked again
        nobody = await terminal.ask(ASKED, "--anonymous")
        assert "3,800" not in nobody["response"]["answer"]
        assert {i["run_id"] for i in (await terminal.memory())["items"]} == {said["run_id"], later["run_id"]}

        income = next(i for i in (await terminal.memory())["items"] if i["kind"] == "fact")
        forgot = await terminal("memory", "forget", income["id"])
        assert forgot.exit_code == 0 and income["id"] in forgot.stdout
        again = await terminal("memory", "forget", income["id"])
        assert again.exit_code == 1 and "그런 항목이 없습니다" in again.output
        assert income["id"] not in {i["id"] for i in (await terminal.memory())["items"]}

        assert (await terminal("memory", "off")).exit_code == 0
        assert (await terminal.memory())["remembering"] is False
        assert (await terminal("memory", "on")).exit_code == 0
        assert (await terminal.memory())["remembering"] is True

        assert (await terminal("memory", "forget")).exit_code == 2  # neither an ID nor --all
        declined = await terminal("memory", "forget", "--all", typed="n\n")
        assert declined.exit_code == 1 and "모두 잊을까요" in declined.output
        assert (await terminal.memory())["items"]  # nothing forgotten by declining
        confirmed = await terminal("memory", "forget", "--all", typed="y\n")
        assert confirmed.exit_code == 0 and "모두 잊었습니다" in confirmed.stdout
        after = await terminal.memory()
        assert after["items"] == [] and after["forgotten_at"]
        assert (await terminal("memory")).stdout == ""


async def test_a_kept_person_the_gateway_refuses_is_replaced_by_the_next_question(
    store, infra, tmp_path: Path
) -> None:
    async with jipsa(store, infra) as gateway:
        terminal = Terminal(gateway, tmp_path / "home")
        terminal.home.mkdir()
        stale = {"person_id": "gone", "token": "a-token-no-one-knows"}
        terminal.person_file.write_text(json.dumps({"people": {gateway.http_url: stale}}))

        refused = await terminal("memory")
        assert refused.exit_code == 1 and "알지 못합니다" in refused.output
        said = await terminal.ask(STATED)
        assert terminal.kept()["token"] != stale["token"]
        assert {i["run_id"] for i in (await terminal.memory())["items"]} == {said["run_id"]}

        terminal.person_file.write_text("not json")
        unreadable = await terminal("ask", "--json", STATED)
        assert unreadable.exit_code == 1 and "person file" in unreadable.output
        assert terminal.person_file.read_text() == "not json"  # left as it was
        anonymous = await terminal.ask(STATED, "--anonymous")
        assert anonymous["response"]["type"] == "answer"
