"""The gateway's REST answers: what each route of /api (and the probes) returns with its 2xx status, so
/openapi.json describes them. Times are ISO 8601 strings, as the projections hand them over.

The run's read models (final state, todo) are the projector's tables read as they are: their JSON
columns (plan, step results, response, errors) are objects here, typed where the contracts own the
shape (the intent) and described otherwise.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.values import Intent
from contracts.websocket import IsoTime, TodoStep


class Answer(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- sessions and runs


class SessionCreated(Answer):
    session_id: str
    token: str = Field(description="the bearer token for this session's routes and its WebSocket")


class RunSummary(Answer):
    """One run of a session's history."""

    run_id: str
    query: str | None
    status: str = Field(description="planning, awaiting_approval, awaiting_input, running or how it ended")
    created_at: IsoTime | None


class SessionRuns(Answer):
    session_id: str
    runs: list[RunSummary] = Field(description="newest first")


class Todo(Answer):
    progress_pct: int = Field(ge=0, le=100)
    steps: list[TodoStep]


class RunState(Answer):
    """A run's final-state projection and its todo. A run the projector has not reached yet has only
    `run_id`, `session_id`, `status` (planning) and `todo`."""

    run_id: str
    session_id: str | None
    status: str = Field(description="as in a session's history")
    query: str | None = None
    require_approval: bool = False
    intent: Intent | None = None
    plan: dict[str, Any] | None = Field(
        default=None, description="strategy, mode, steps, estimated_total_s, modified_by_person"
    )
    step_results: dict[str, dict[str, Any]] = Field(
        default={}, description="step id -> the step's result (contracts.results.StepResult)"
    )
    response: dict[str, Any] | None = Field(default=None, description="the ResponseReady payload")
    errors: list[dict[str, Any]] = Field(
        default=[], description="each failure: at, code, message, step_id, attempt"
    )
    created_at: IsoTime | None = None
    planned_at: IsoTime | None = None
    completed_at: IsoTime | None = None
    total_ms: float | None = None
    llm_calls: int = 0
    llm_fallbacks: int = 0
    tool_decisions: int = 0
    last_position: int | None = Field(default=None, description="the last event the projection holds")
    todo: Todo | None


class RunEvent(Answer):
    """One event of a run as stored: its envelope's facts and its payload (`data`)."""

    position: int
    event_id: str
    type: str
    version: int
    occurred_at: IsoTime
    causation: str | None = Field(description="the id of the event that caused it")
    data: dict[str, Any]


class RunEvents(Answer):
    run_id: str
    events: list[RunEvent] = Field(description="in log order")


class CancelAccepted(Answer):
    """The request is recorded; the supervisor ends the run, which the socket then reports."""

    run_id: str
    position: int = Field(description="the RunCancelRequested event's position")


# --- people and what Jipsa remembers of them


class PersonCreated(Answer):
    person_id: str
    token: str = Field(
        description="the person's bearer token, shown once: `POST /api/sessions` with it makes a session of "
        "theirs, and it opens /api/people/me"
    )


class MemoryItem(Answer):
    """One thing Jipsa remembers of the person, and where it came from."""

    id: str = Field(description="the item's id, for `DELETE /api/people/me/memory/{item_id}`")
    kind: Literal["fact", "place", "property_type", "deal_type", "conversation"]
    value: str = Field(description="as the person reads it: '연소득 3,800만원', '관악구', '전세'")
    run_id: str = Field(description="the run it was said in")
    session_id: str | None
    said_at: IsoTime


class PersonMemory(Answer):
    person_id: str
    remembering: bool = Field(description="off: nothing new is remembered and nothing remembered is used")
    items: list[MemoryItem] = Field(description="oldest first")
    forgotten_at: IsoTime | None = Field(description="when 모두 잊기 last happened (not what it dropped)")


class MemoryChanged(Answer):
    """The change is recorded, and the memory shown reflects it."""

    position: int = Field(description="the recording event's position in the log")


# --- probes


class Liveness(Answer):
    process: str


class GatewayReadiness(Answer):
    """Each dependency's answer: "ok", or why not (then the status is 503)."""

    postgres: str
    nats: str
    follower: str


# --- the operator's page (/api/operator)


class MinuteCount(Answer):
    minute: IsoTime
    runs: int


class RunCounts(Answer):
    counted: int
    capped: bool = Field(description="the window held more runs; the newest were counted")
    per_minute: list[MinuteCount]
    by_outcome: dict[str, int]


class TeamLatency(Answer):
    team: str
    steps: int
    failed: int
    p50_ms: float
    p95_ms: float


class CallPointFigures(Answer):
    call_point: str
    calls: int
    failures: int
    fallbacks: int
    p50_ms: float


class DeadLetterView(Answer):
    id: int
    consumer: str
    subject: str
    event_id: str | None
    error: str
    deliveries: int
    parked_at: IsoTime
    replayed_at: IsoTime | None
    payload: str = Field(description="the message, its first 500 characters")


class CheckpointLag(Answer):
    name: str
    position: int
    updated_at: IsoTime | None
    head: int
    behind: int


class ConsumerLag(Answer):
    consumer: str | None
    pending: int
    unacked: int
    redelivered: int


class StreamConsumers(Answer):
    stream: str | None
    list: list[ConsumerLag]
    problem: str | None = Field(description="why there are none to show")


class SlowRun(Answer):
    run_id: str
    query: str | None
    status: str
    outcome: str | None
    created_at: IsoTime
    total_ms: float


class OperatorOverview(Answer):
    now: IsoTime
    minutes: int
    runs: RunCounts
    steps: list[TeamLatency]
    llm: list[CallPointFigures]
    dead_letters: list[DeadLetterView] = Field(description="open ones newest first, then recent re-drives")
    checkpoints: list[CheckpointLag]
    consumers: StreamConsumers
    slowest: list[SlowRun]


class TimelineEntry(Answer):
    """A row of `jipsa audit RUN_ID`."""

    position: int
    occurred_at: IsoTime
    event: str = Field(description='type and stored version, e.g. "StepFailed v1"')
    producer: str
    stream_version: int
    cause: str | None
    details: str


class RunTimeline(Answer):
    run_id: str
    events: list[TimelineEntry]


class Redriven(Answer):
    id: int
    subject: str


# --- the map (GET /api/map/dongs, /api/map/complexes): the listing snapshot where it is, no key needed

MapDeal = Literal["sale", "jeonse", "monthly"]


class PriceRange(Answer):
    """A complex's asking range (호가) for one deal type, in 만원 (월세: the monthly rent)."""

    min_manwon: int | None
    max_manwon: int | None
    listings: int = Field(ge=0, description="listings of this deal type in the snapshot")


class ComplexPoint(Answer):
    """One complex where it is, with the fields of its card."""

    complex_id: str
    name: str
    property_type: str = Field(description="apartment | officetel")
    gu: str
    dong: str
    lat: float
    lon: float
    households: int | None = Field(description="세대수")
    buildings: int | None = Field(description="동 수")
    completion_ym: str | None = Field(description="준공 YYYY-MM")
    area_min_m2: float | None = Field(description="supply area (공급면적)")
    area_max_m2: float | None
    station: str | None
    line: str | None
    walk_min: int | None = Field(description="minutes on foot to the station")
    schools: list[str] = Field(description="초·중·고 in that order")
    ranges: dict[str, PriceRange] = Field(description="sale | jeonse | monthly -> its range, where listed")
    asking_manwon: float | None = Field(
        description="the midpoint of the asked deal's range ((min + max) / 2; one known end stands for it)"
    )


class ComplexPoints(Answer):
    deal: MapDeal
    source: str = Field(description="the listing snapshot and its date")
    count: int
    complexes: list[ComplexPoint] = Field(description="by name")


class MapBand(Answer):
    """One band of the choropleth: the 동 whose median lies in [lo_manwon, hi_manwon]."""

    lo_manwon: float
    hi_manwon: float
    dongs: int


class DongProperties(Answer):
    gu: str
    dong: str
    code: str = Field(description="법정동 code (8 digits)")
    complexes: int = Field(description="complexes with listings of the deal type (after the filters)")
    median_manwon: float | None = Field(
        description="median over those complexes of their range's midpoint: 호가 범위 중간값의 중앙값"
    )
    band: int | None = Field(description="index into `bands`; none without complexes")


class Geometry(Answer):
    type: Literal["Polygon", "MultiPolygon"]
    coordinates: list[Any] = Field(description="GeoJSON positions, [longitude, latitude] (WGS84)")


class DongFeature(Answer):
    type: Literal["Feature"] = "Feature"
    properties: DongProperties
    geometry: Geometry


class MapStation(Answer):
    """A subway station, where the listing snapshot's distances place it: each row of the snapshot gives
    the straight-line distance to its nearest station, and the point that fits a station's rows (one
    per line, least squares) is its position; the mark is the mean of its lines' points."""

    name: str
    lines: list[str]
    lat: float
    lon: float
    gu: str | None = Field(description="the 구 it lies in; none when outside every 구 of the snapshot")
    rows: int = Field(ge=0, description="listing rows whose distances placed it")
    rms_m: float = Field(description="RMS in metres of those rows' distances against the solved points")


class DongMap(Answer):
    """A GeoJSON FeatureCollection of the 구's 동, with the choropleth's bands beside the features (one
    scale over every 구 asked, so two 구 side by side are coloured alike)."""

    type: Literal["FeatureCollection"] = "FeatureCollection"
    gus: list[str]
    deal: MapDeal
    source: str = Field(description="where the boundaries and prices come from, with their dates")
    bands: list[MapBand] = Field(description="at most five, cheapest first, each of about as many 동")
    features: list[DongFeature]
    stations: list[MapStation] = Field(
        description="the subway stations inside the asked 구 or within 1.5 km of one, by name"
    )
