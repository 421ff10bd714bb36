"""The gateway's /openapi.json describes what each route answers and how a caller authenticates: every
route has a schema for its success, and the bearer schemes (the session's token, the operator's) are
declared on exactly the routes that check them."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings

pytestmark = pytest.mark.contract

SUCCESS = ("200", "201", "202")
# The map's routes answer from the public listing snapshot: no token, like the probes.
OPEN_ROUTES = {
    ("post", "/api/people"),
    ("get", "/livez"),
    ("get", "/readyz"),
    ("get", "/healthz"),
    ("get", "/api/map/dongs"),
    ("get", "/api/map/complexes"),
}


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    """The document as the app serves it (nothing connects: the app's lifespan is not started)."""
    app = create_app(
        GatewaySettings(), database_url="postgresql://unused/none", nats_url="nats://unused:4222"
    )
    answer = TestClient(app).get("/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def operations(openapi: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, ops in openapi["paths"].items() for method, op in ops.items()]


def resolved(openapi: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_the_routes_are_the_gateways(openapi: dict[str, Any]) -> None:
    assert {(method, path) for method, path, _ in operations(openapi)} == OPEN_ROUTES | {
        ("get", "/api/sessions/{session_id}/runs"),
        ("get", "/api/runs/{run_id}"),
        ("get", "/api/runs/{run_id}/events"),
        ("post", "/api/sessions/{session_id}/runs/{run_id}/cancel"),
        ("get", "/api/documents/{artifact_id}"),
        ("post", "/api/sessions"),
        ("get", "/api/people/me/memory"),
        ("delete", "/api/people/me/memory/{item_id}"),
        ("delete", "/api/people/me/memory"),
        ("put", "/api/people/me/remembering"),
        ("get", "/api/operator/overview"),
        ("get", "/api/operator/runs/{run_id}/timeline"),
        ("post", "/api/operator/dead-letters/{letter_id}/redrive"),
    }


def test_every_route_describes_its_success(openapi: dict[str, Any]) -> None:
    undescribed = []
    for method, path, op in operations(openapi):
        successes = [op["responses"][code] for code in SUCCESS if code in op["responses"]]
        schemas = [
            resolved(openapi, media["schema"])
            for answer in successes
            for media in answer.get("content", {}).values()
        ]
        described = [s for s in schemas if s.get("properties") or s.get("format") == "binary"]
        if len(successes) != 1 or not schemas or len(described) != len(schemas):
            undescribed.append(f"{method.upper()} {path}")
    assert undescribed == []


def test_a_run_state_is_described_field_by_field(openapi: dict[str, Any]) -> None:
    schema = openapi["components"]["schemas"]["RunState"]
    assert {"run_id", "session_id", "status", "intent", "plan", "response", "todo"} <= set(
        schema["properties"]
    )
    todo = resolved(openapi, schema["properties"]["todo"]["anyOf"][0])
    steps = resolved(openapi, todo["properties"]["steps"]["items"])
    assert set(steps["required"]) >= {"step_id", "team", "task", "status", "depends_on"}


def test_the_map_is_typed_for_another_client(openapi: dict[str, Any]) -> None:
    """A client drawing the map needs the GeoJSON shape and each 동's figures from the document alone."""
    schemas = openapi["components"]["schemas"]
    dongs = openapi["paths"]["/api/map/dongs"]["get"]
    answer = resolved(openapi, dongs["responses"]["200"]["content"]["application/json"]["schema"])
    assert answer["properties"]["type"]["const"] == "FeatureCollection"
    assert {"gu", "dong", "complexes", "median_manwon"} <= set(schemas["DongProperties"]["properties"])
    assert {"lo_manwon", "hi_manwon"} <= set(schemas["MapBand"]["properties"])
    assert {"name", "lines", "lat", "lon"} <= set(schemas["MapStation"]["properties"])
    assert "stations" in answer["required"]
    card = set(schemas["ComplexPoint"]["properties"])
    assert {"lat", "lon", "households", "completion_ym", "station", "walk_min", "schools", "ranges"} <= card
    complexes_params = {p["name"] for p in openapi["paths"]["/api/map/complexes"]["get"]["parameters"]}
    assert {p["name"] for p in dongs["parameters"]} == complexes_params  # the same filters
    assert {
        "deal",
        "gu",
        "price_min",
        "area_max",
        "households_min",
        "built_from",
        "walk_max",
    } <= complexes_params


def test_a_persons_memory_is_typed_item_by_item(openapi: dict[str, Any]) -> None:
    schemas = openapi["components"]["schemas"]
    assert {"id", "kind", "value", "run_id", "said_at"} <= set(schemas["MemoryItem"]["required"])
    assert {"person_id", "token"} <= set(schemas["PersonCreated"]["required"])


def test_the_bearer_schemes_are_declared(openapi: dict[str, Any]) -> None:
    schemes = openapi["components"]["securitySchemes"]
    assert {name: (s["type"], s["scheme"]) for name, s in schemes.items()} == {
        "session": ("http", "bearer"),
        "person": ("http", "bearer"),
        "operator": ("http", "bearer"),
    }


def test_each_route_names_the_token_it_checks(openapi: dict[str, Any]) -> None:
    def expected(method: str, path: str) -> list[dict[str, list[str]]] | None:
        if (method, path) in OPEN_ROUTES:
            return None
        if path.startswith("/api/operator/"):
            return [{"operator": []}]
        # A session is made of a person when their token comes with the request (optional there).
        return (
            [{"person": []}]
            if path.startswith("/api/people/") or path == "/api/sessions"
            else [{"session": []}]
        )

    assert {(m, p): op.get("security") for m, p, op in operations(openapi)} == {
        (m, p): expected(m, p) for m, p, _ in operations(openapi)
    }
