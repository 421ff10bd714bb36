"""The REST side of people: make one, read what Jipsa remembers of them, forget one item or all of it
(모두 잊기), turn remembering off or on. The person's token is presented as `Authorization: Bearer`
(the `person` scheme in /openapi.json); missing or unknown is 401. `POST /api/sessions` with it makes
a session of the person (rest.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, status
from pydantic import BaseModel, ConfigDict, Field

from contracts.api import MemoryChanged, PersonCreated, PersonMemory
from services.gateway.limits import limits_of
from services.gateway.web.rest import PlainRefusals, PortsDep, person_of, refuse_if_rationed

router = APIRouter(route_class=PlainRefusals)


class Remembering(BaseModel):
    model_config = ConfigDict(extra="forbid")

    remembering: bool = Field(description="off: nothing new is remembered and nothing remembered is used")


PersonDep = Annotated[str, Depends(person_of)]


@router.post("/api/people", status_code=status.HTTP_201_CREATED)
async def create_person(request: Request, ports: PortsDep) -> PersonCreated:
    address = request.client.host if request.client else "unknown"
    refuse_if_rationed(
        limits_of(request.app.state, ports.settings).sessions.take(address), "new people from this address"
    )
    person_id, token = await ports.people.create()
    return PersonCreated(person_id=person_id, token=token)


@router.get("/api/people/me/memory")
async def get_memory(person_id: PersonDep, ports: PortsDep) -> PersonMemory:
    memory = await ports.people.memory(person_id)
    items = [{**item.model_dump(mode="json"), "id": item.item_id} for item in memory.items]
    return PersonMemory.model_validate({**memory.model_dump(mode="json"), "items": items})


@router.delete("/api/people/me/memory/{item_id}")
async def forget_item(item_id: str, person_id: PersonDep, ports: PortsDep) -> MemoryChanged:
    """Forget one item; an id the memory does not hold is a 404."""
    held = {item.item_id for item in (await ports.people.memory(person_id)).items}
    if item_id not in held:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such item in this person's memory")
    return MemoryChanged(position=(await ports.people.forget_item(person_id, item_id)).position)


@router.delete("/api/people/me/memory")
async def forget_all(person_id: PersonDep, ports: PortsDep) -> MemoryChanged:
    """모두 잊기: every item dropped from what Jipsa remembers and uses."""
    return MemoryChanged(position=(await ports.people.forget_all(person_id)).position)


@router.put("/api/people/me/remembering")
async def set_remembering(body: Remembering, person_id: PersonDep, ports: PortsDep) -> MemoryChanged:
    recorded = await ports.people.set_remembering(person_id, body.remembering)
    return MemoryChanged(position=recorded.position)
