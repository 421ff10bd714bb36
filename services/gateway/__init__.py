"""The gateway: the person's way in (WebSocket `/ws/{session_id}`, REST, the web page) and the operator's
page; `jipsa ask` is a client of it (services/ask).

It records what the person asks as events in the store and tells them what happens by following the
log and the projections. Modules:

- protocol.py       client frames (pydantic, discriminated on `type`), parsed without ever raising else
- messages.py       event -> server message, pure
- person_events.py  frame -> event envelope, pure (with the edited-plan rules)
- handlers.py       a request checked against the session's runs and appended, safe under races
- run_waits.py      what a run waits for from its person, folded from its stream (the check), pure
- reads.py          the SQL the gateway reads: log by position / session / run, projections, checkpoint
- outbox.py         one socket's ordered, de-duplicated delivery
- follower.py       the one log follower per process, fan-out and gap-free resume (its docstring says why)
- ws.py, api.py     the WebSocket and REST entrypoints; health.py /livez, /readyz (and /healthz)
- bootstrap.py      settings in, the app built and served (`python -m services.gateway`)
- app.py            create_app, the lifespan that builds the Ports
- bodies.py         request bodies bounded in size (413) and in time (408)
- operator.py       the operator's page `/operator` and its API, behind JIPSA_OPERATOR_TOKEN; what it
                    reads in operator_reads.py, its figures (pure) in operator_figures.py
"""
