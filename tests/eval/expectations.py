"""A scenario's expectations, checked on what one turn of the conversation gave the person.

What is scored as the answer's text (`scored_text`), i.e. what the person reads:
- a final answer: `final_response.response.content`, then one line per citation
  ("{law} {article} {title}": the reference the page lists under the answer; the statute's quoted text
  is left out, since an answer must say what the article means, not leave a pasted article to say it),
  then one line per generated document (its name);
- a request for input: its `message`, then one line per question ("{label} {hint}");
- an `error` message: its `message`.
Word checks (must_mention, must_mention_any, must_not_mention, asks_for, mentions_at_least) compare with
whitespace removed and case folded; must_match / must_not_match are regular expressions over the raw text;
figures are read as tests/eval/reading.py says. A figure equal to one of the same unit in this or an
earlier turn's question is an echo, not an answer, and is ignored by numbers_within.

`first_sentence` (ours): {"mention_any": [[alternatives], ...], "numbers_within": {label: [low, high]}},
checked on the first sentence of `content` only (reading.first_sentence): the verdict and the number asked
for must come first, not after five quoted articles.

Every check is a pure function of the played turn (the player fetched the run, its events and the
document beforehand), so it can be tested on hand-written turns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.eval.reading import figures_near, find_figures, first_sentence, mentions, parse_label

Message = dict[str, Any]
NOT_STARTED = {"pending", "skipped"}  # todo statuses a step has before (or instead of) running
STEP_EVENTS = {"StepStarted", "StepCompleted", "StepFailed"}
LEAK_PATTERNS = [
    r"Traceback \(most recent call last\)",
    r"File \"[^\"\n]+\.py\", line \d+",
    r"\b(?:postgres(?:ql)?(?:\+\w+)?|nats|redis|amqp|mongodb)://",
    r"\bsk-[A-Za-z0-9_\-]{16,}",
    r"\b[A-Z][A-Z0-9_]*(?:API_KEY|SECRET|PASSWORD)\s*[=:]\s*\S+",
    r"\b(?:sqlalchemy|psycopg2?|asyncpg|faststream|pydantic_core|uvicorn|starlette)\.[a-z_]+",
    r"\b(?:KeyError|AttributeError|TypeError|IndexError|ValueError|NameError|ZeroDivisionError|RuntimeError|"
    r"AssertionError|UnboundLocalError|ModuleNotFoundError|ImportError|JSONDecodeError|ValidationError)\b",
    r"(?i)\byou are (?:a|an|the|jipsa)\b[^\n]{0,80}\b(?:assistant|agent|planner|expert)",
    r"당신은[^\n]{0,40}(?:어시스턴트|에이전트|전문가|AI|챗봇)(?:입니다|이다|로서)",
    r"\bprompts/[\w\-/]+\.(?:md|txt|ya?ml|j2|jinja2?|json)\b",
]


@dataclass
class Turn:
    """One question and everything the person (and the REST API) showed for it."""

    query: str
    messages: list[Message] = field(default_factory=list)
    run_id: str | None = None
    socket: int | None = None  # which connection of the scenario carried it (1 = the first)
    problems: list[str] = field(default_factory=list)  # the conversation itself went wrong
    run: Message | None = None  # GET /api/runs/{run_id}
    events: list[Message] | None = None  # GET /api/runs/{run_id}/events; None when unreadable
    document: tuple[int | None, str] | None = None  # (download status, its paragraphs and cells)

    def last_of(self, *kinds: str) -> Message | None:
        return next((m for m in reversed(self.messages) if m.get("type") in kinds), None)

    @property
    def final(self) -> Message | None:
        return self.last_of("final_response", "error")

    @property
    def asked(self) -> Message | None:
        return self.last_of("input_request")

    @property
    def plan(self) -> Message | None:
        return self.last_of("plan_ready")

    @property
    def ended(self) -> bool:
        return self.final is not None or self.asked is not None


@dataclass
class Conversation:
    """A scenario as played: its turns, and what was read about the session at the end."""

    turns: list[Turn]
    session_runs: list[str] | None = None  # run ids GET /api/sessions/{id}/runs listed
    healthy: bool | None = None  # /healthz after the last turn


# ---------------------------------------------------------------- what a turn showed


def content(turn: Turn) -> str:
    final = turn.final
    if final is None:
        return ""
    if final.get("type") == "error":
        return str(final.get("message", ""))
    return str((final.get("response") or {}).get("content", ""))


def scored_text(turn: Turn) -> str:
    final, asked = turn.final, turn.asked
    if final is not None and final.get("type") == "final_response":
        data = (final.get("response") or {}).get("data") or {}
        cites = [
            " ".join(str(c.get(k) or "") for k in ("law", "article", "title"))
            for c in data.get("citations", [])
        ]
        docs = [str(d.get("name", "")) for d in data.get("documents", [])]
        return "\n".join([content(turn), *cites, *docs])
    if final is not None:
        return content(turn)
    if asked is not None:
        questions = [f"{q.get('label', '')} {q.get('hint') or ''}" for q in asked.get("questions", [])]
        return "\n".join([str(asked.get("message", "")), *questions])
    return ""


def response_type(turn: Turn) -> str | None:
    final = turn.final
    if final is not None:
        return "error" if final.get("type") == "error" else (final.get("response") or {}).get("type")
    return "input_required" if turn.asked is not None else None


def intent(turn: Turn) -> str | None:
    if turn.plan is not None:
        return turn.plan.get("intent")
    plan = (turn.run or {}).get("plan") or {}
    return (turn.run or {}).get("intent") or plan.get("intent")


def steps(turn: Turn) -> list[Message]:
    return list((turn.plan or {}).get("execution_steps") or [])


def teams(turn: Turn) -> set[str]:
    return {str(s.get("team", "")).lower() for s in steps(turn)}


def step_statuses(turn: Turn) -> set[str]:
    return {
        str(s.get("status", ""))
        for m in turn.messages
        if m.get("type") in ("execution_start", "todo_updated")
        for s in m.get("execution_steps") or []
    }


def step_event_types(turn: Turn) -> set[str]:
    return {str(e.get("type")) for e in turn.events or []} & STEP_EVENTS


def document_ids(turn: Turn) -> list[str]:
    final = turn.final or {}
    documents = ((final.get("response") or {}).get("data") or {}).get("documents") or []
    return [str(d["artifact_id"]) for d in documents if d.get("artifact_id")]


# ---------------------------------------------------------------- the checks


@dataclass(frozen=True)
class Context:
    """A turn with what its checks compare against: the questions asked so far (for echoes), and the
    whole conversation (for the checks about the session)."""

    turn: Turn
    index: int
    conversation: Conversation

    @property
    def text(self) -> str:
        return scored_text(self.turn)

    @property
    def queries(self) -> list[str]:
        return [t.query for t in self.conversation.turns[: self.index + 1]]


Check = Callable[[Any, Context], list[str]]


def _upper(names: list[str]) -> set[str]:
    return {n.upper() for n in names}


def intent_in(want: list[str], c: Context) -> list[str]:
    got = intent(c.turn)
    return [] if got and got.upper() in _upper(want) else [f"intent {got} not in {want}"]


def intent_not_in(want: list[str], c: Context) -> list[str]:
    got = intent(c.turn)
    return [] if got and got.upper() not in _upper(want) else [f"intent {got} (must be one and not {want})"]


def teams_include(want: list[str], c: Context) -> list[str]:
    missing = set(want) - teams(c.turn)
    return [f"teams {sorted(teams(c.turn))} lack {sorted(missing)}"] if missing else []


def teams_exclude(want: list[str], c: Context) -> list[str]:
    extra = set(want) & teams(c.turn)
    return [f"teams include {sorted(extra)}"] if extra else []


def min_steps(want: int, c: Context) -> list[str]:
    n = len(steps(c.turn))
    return [f"{n} steps < {want}"] if n < want else []


def max_steps(want: int, c: Context) -> list[str]:
    n = len(steps(c.turn))
    return [f"{n} steps > {want}"] if n > want else []


def has_depends_on(want: bool, c: Context) -> list[str]:
    has = any(s.get("depends_on") for s in steps(c.turn))
    return [] if has == bool(want) else ["no step depends on another" if want else "unexpected depends_on"]


def response_type_in(want: str | list[str], c: Context) -> list[str]:
    allowed = [want] if isinstance(want, str) else list(want)
    got = response_type(c.turn)
    return [] if got in allowed else [f"response type {got} not in {allowed}"]


def must_mention(want: list[str], c: Context) -> list[str]:
    missing = [w for w in want if not mentions(c.text, w)]
    return [f"missing {missing}"] if missing else []


def must_mention_any(want: list[list[str]], c: Context) -> list[str]:
    return [f"none of {group}" for group in want if not any(mentions(c.text, w) for w in group)]


def must_not_mention(want: list[str], c: Context) -> list[str]:
    hits = [w for w in want if mentions(c.text, w)]
    return [f"mentions {hits}"] if hits else []


def must_match(want: list[str], c: Context) -> list[str]:
    return [f"no match for /{rx[:40]}/" for rx in want if not re.search(rx, c.text)]


def must_not_match(want: list[str], c: Context) -> list[str]:
    hits = [(rx, re.search(rx, c.text)) for rx in want]
    return [f"matched /{rx[:30]}/: {m.group(0)[:40]!r}" for rx, m in hits if m]


def mentions_at_least(want: dict[str, Any], c: Context) -> list[str]:
    shown = [w for w in want.get("of", []) if mentions(c.text, w)]
    n = want.get("n", 1)
    return [f"{len(shown)} of the expected names shown < {n}"] if len(shown) < n else []


def figures_within(want: dict[str, list[float]], text: str, queries: list[str]) -> list[str]:
    """Each label must find at least one figure in [low, high] that is not an echo of the questions."""
    failures = []
    for label, (low, high) in want.items():
        unit, keywords = parse_label(label)
        echoes = {v for q in queries for v, _, _ in find_figures(q, unit)}
        values = [v for v in figures_near(text, unit, keywords) if v not in echoes]
        if not any(low <= v <= high for v in values):
            shown = ", ".join(f"{v:.10g}" for v in values[:6]) or "none"
            failures.append(f"{label}: no {unit} in [{low:.10g}, {high:.10g}] (found {shown})")
    return failures


def numbers_within(want: dict[str, list[float]], c: Context) -> list[str]:
    return figures_within(want, c.text, c.queries)


def numbers_max(want: dict[str, float], c: Context) -> list[str]:
    failures = []
    for label, most in want.items():
        unit, keywords = parse_label(label)
        over = [v for v in figures_near(c.text, unit, keywords) if v > most]
        if over:
            failures.append(f"{label}: {max(over):.10g} > {most:.10g}")
    return failures


def first_sentence_answers(want: dict[str, Any], c: Context) -> list[str]:
    sentence = first_sentence(content(c.turn))
    failures = [
        f"first sentence has none of {group}"
        for group in want.get("mention_any", [])
        if not any(mentions(sentence, w) for w in group)
    ]
    failures += [
        f"first sentence: {f}" for f in figures_within(want.get("numbers_within", {}), sentence, c.queries)
    ]
    return failures + ([f"(first sentence: {sentence[:120]!r})"] if failures else [])


def no_leak(want: bool, c: Context) -> list[str]:
    hits = [m for m in (re.search(rx, c.text) for rx in LEAK_PATTERNS) if m]
    return [f"leaks internals: {hits[0].group(0)[:40]!r}"] if hits else []


def no_step_started(want: bool, c: Context) -> list[str]:
    if not c.turn.run_id:
        return ["no run id (no plan arrived)"]
    failures = []
    moved = sorted(step_statuses(c.turn) - NOT_STARTED)
    if moved:
        failures.append(f"steps moved on the socket: {moved}")
    if c.turn.events is None:
        failures.append("run events not readable")
    elif step_event_types(c.turn):
        failures.append(f"events show {sorted(step_event_types(c.turn))}")
    return failures


def steps_completed(want: bool, c: Context) -> list[str]:
    done = "completed" in step_statuses(c.turn) or "StepCompleted" in step_event_types(c.turn)
    return [] if done else ["no step completed"]


def document_created(want: bool, c: Context) -> list[str]:
    if not document_ids(c.turn):
        return ["no document in the answer"]
    status = (c.turn.document or (None, ""))[0]
    return [] if status == 200 else [f"document download {status}"]


def document_contains(want: list[str], c: Context) -> list[str]:
    body = (c.turn.document or (None, ""))[1]
    missing = [w for w in want if not mentions(body, w)]
    return [f"document lacks {missing}"] if missing else []


def no_document(want: bool, c: Context) -> list[str]:
    ids = document_ids(c.turn)
    return [f"a document was produced ({ids[0][:20]}) before the fields were given"] if ids else []


def asks_for(want: list[list[str]], c: Context) -> list[str]:
    return [f"does not ask for {group[0]}" for group in want if not any(mentions(c.text, w) for w in group)]


def events_readable(want: bool, c: Context) -> list[str]:
    return [] if c.turn.events else ["run events not readable"]


def alive(want: bool, c: Context) -> list[str]:
    return [] if c.conversation.healthy else ["gateway /healthz not 200 afterwards"]


def same_socket(want: bool, c: Context) -> list[str]:
    first = c.conversation.turns[0].socket
    stayed = c.index > 0 and first is not None and c.turn.socket == first
    return [] if stayed else ["socket did not stay usable (reconnect needed)"]


def same_session_context(want: dict[str, Any], c: Context) -> list[str]:
    turns = c.conversation.turns
    failures = []
    if want.get("intent_same") and (intent(turns[0]) is None or intent(turns[0]) != intent(c.turn)):
        failures.append(f"follow-up intent {intent(c.turn)} != first {intent(turns[0])}")
    seen = c.text + "\n" + " ".join(str(v) for v in (c.turn.plan or {}).values())
    failures += [
        f"follow-up lost {w!r}"
        for w in [*want.get("keep", []), *want.get("new", [])]
        if not mentions(seen, w)
    ]
    ids = [t.run_id for t in turns[: c.index + 1]]
    listed = set(c.conversation.session_runs or [])
    if not all(ids) or not set(ids) <= listed:
        failures.append("the session's runs do not list every turn's run")
    return failures


CHECKS: dict[str, Check] = {
    "intent_in": intent_in,
    "intent_not_in": intent_not_in,
    "teams_include": teams_include,
    "teams_exclude": teams_exclude,
    "min_steps": min_steps,
    "max_steps": max_steps,
    "has_depends_on": has_depends_on,
    "response_type": response_type_in,
    "must_mention": must_mention,
    "must_mention_any": must_mention_any,
    "must_not_mention": must_not_mention,
    "must_match": must_match,
    "must_not_match": must_not_match,
    "mentions_at_least": mentions_at_least,
    "numbers_within": numbers_within,
    "numbers_max": numbers_max,
    "first_sentence": first_sentence_answers,
    "no_leak": no_leak,
    "no_step_started": no_step_started,
    "steps_completed": steps_completed,
    "document_created": document_created,
    "document_contains": document_contains,
    "no_document": no_document,
    "asks_for": asks_for,
    "events_readable": events_readable,
    "alive": alive,
    "same_socket": same_socket,
    "same_session_context": same_session_context,
}


def check_turn(expect: dict[str, Any], c: Context) -> list[str]:
    failures: list[str] = []
    for name, want in expect.items():
        check = CHECKS.get(name)
        failures += check(want, c) if check else [f"unknown expectation {name}"]
    return failures


def check_conversation(scenario: dict[str, Any], conversation: Conversation) -> list[str]:
    """Every turn's own expectations, the scenario's `expect` on its last turn; "t2: ..." in a
    multi-turn scenario."""
    specs = scenario.get("turns") or []
    failures: list[str] = []
    for index, (spec, turn) in enumerate(zip(specs, conversation.turns, strict=False)):
        tag = f"t{index + 1}: " if len(specs) > 1 else ""
        failures += [tag + p for p in turn.problems]
        if not turn.ended:
            failures += [] if turn.problems else [tag + "turn ended without an answer"]
            continue
        expect = dict(spec.get("expect") or {})
        if index == len(specs) - 1:
            expect.update(scenario.get("expect") or {})
        failures += [tag + f for f in check_turn(expect, Context(turn, index, conversation))]
    return failures
