"""Jipsa remembers the person between conversations, through the public interfaces only (REST and the
WebSocket, the whole system in-process on real NATS and Postgres): a fact stated in one session answers
a later session of the same person and the answer says it was said before; another person's sessions
never see it; the memory is shown item by item with the run each came from, and an item forgotten, or
remembering turned off, is no longer used.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from services.projector.digest import digest
from services.projector.runner import Projector
from tests.integration.gateway_helpers import Gateway, connected
from tests.integration.test_gateway_conversation import final_of
from tests.integration.test_run_end_to_end import jipsa

pytestmark = pytest.mark.integration

STATED = "연봉 3800이에요. 관악구 아파트 전세 알아보고 있어요"
ASKED = "전세자금대출 한도 얼마나 나와요?"
RECALLED = "지난번에 말씀하신 연소득 3,800만원 기준"


async def new_person(http: httpx.AsyncClient) -> str:
    return (await http.post("/api/people")).raise_for_status().json()["token"]


async def session_of(http: httpx.AsyncClient, person_token: str | None) -> tuple[str, str]:
    headers = {"Authorization": f"Bearer {person_token}"} if person_token else {}
    created = (await http.post("/api/sessions", headers=headers)).raise_for_status().json()
    return created["session_id"], created["token"]


async def answer_in_new_session(
    gateway: Gateway, http: httpx.AsyncClient, person: str | None, query: str
) -> dict:
    session_id, token = await session_of(http, person)
    async with connected(gateway, session_id, token) as client:
        await client.send({"type": "query", "query": query})
        began = await client.until_type("planning_start", timeout=30)
        return (await client.until(final_of(began["run_id"]), 90))[-1]


async def memory(http: httpx.AsyncClient, person: str) -> dict[str, Any]:
    reply = await http.get("/api/people/me/memory", headers={"Authorization": f"Bearer {person}"})
    return reply.raise_for_status().json()


async def test_a_fact_said_in_one_session_answers_the_next_and_only_for_that_person(store, infra) -> None:
    async with jipsa(store, infra) as gateway, httpx.AsyncClient(base_url=gateway.http_url) as http:
        person, stranger = await new_person(http), await new_person(http)
        said = await answer_in_new_session(gateway, http, person, STATED)

        remembered = await memory(http, person)
        by_kind = {(i["kind"], i["value"]) for i in remembered["items"]}
        assert {("fact", "연소득 3,800만원"), ("place", "관악구"), ("deal_type", "전세")} <= by_kind
        assert {i["run_id"] for i in remembered["items"]} == {said["run_id"]}
        assert remembered["remembering"] is True

        later = await answer_in_new_session(gateway, http, person, ASKED)
        assert RECALLED in later["response"]["content"], later["response"]["content"]

        for other in (stranger, None):  # another person, and a session of nobody
            elsewhere = await answer_in_new_session(gateway, http, other, ASKED)
            assert "3,800" not in elsewhere["response"]["content"]
        theirs = (await memory(http, stranger))["items"]
        assert [i["value"] for i in theirs if i["kind"] == "conversation"] == [ASKED]  # their own, only
        assert not [i for i in theirs if i["kind"] == "fact" or i["run_id"] == said["run_id"]]


async def test_a_forgotten_item_and_remembering_turned_off_are_not_used(store, infra) -> None:
    async with jipsa(store, infra) as gateway, httpx.AsyncClient(base_url=gateway.http_url) as http:
        person = await new_person(http)
        auth = {"Authorization": f"Bearer {person}"}
        await answer_in_new_session(gateway, http, person, STATED)
        income = next(i for i in (await memory(http, person))["items"] if i["kind"] == "fact")

        (await http.delete(f"/api/people/me/memory/{income['id']}", headers=auth)).raise_for_status()
        assert income["id"] not in {i["id"] for i in (await memory(http, person))["items"]}
        assert (await http.delete(f"/api/people/me/memory/{income['id']}", headers=auth)).status_code == 404
        after_forgetting = await answer_in_new_session(gateway, http, person, ASKED)
        assert "3,800" not in after_forgetting["response"]["content"]

        await answer_in_new_session(gateway, http, person, STATED)
        (
            await http.put("/api/people/me/remembering", json={"remembering": False}, headers=auth)
        ).raise_for_status()
        turned_off = await answer_in_new_session(gateway, http, person, ASKED)
        assert "3,800" not in turned_off["response"]["content"]
        assert (await memory(http, person))["remembering"] is False

        projector = Projector(store)
        await projector.catch_up()
        async with store.pool.connection() as conn:
            live = await digest(conn)
            await projector.rebuild()
            assert await digest(conn) == live  # the memories rebuild from the log as they were folded


async def test_a_person_token_is_required_and_checked(store, infra) -> None:
    async with jipsa(store, infra) as gateway, httpx.AsyncClient(base_url=gateway.http_url) as http:
        assert (await http.get("/api/people/me/memory")).status_code == 401
        wrong = {"Authorization": "Bearer not-a-person"}
        assert (await http.get("/api/people/me/memory", headers=wrong)).status_code == 401
        assert (await http.post("/api/sessions", headers=wrong)).status_code == 401
        _, session_token = await session_of(http, None)  # a session's token opens no person
        as_session = {"Authorization": f"Bearer {session_token}"}
        assert (await http.get("/api/people/me/memory", headers=as_session)).status_code == 401
