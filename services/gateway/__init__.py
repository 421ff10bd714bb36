"""The gateway: the person's way in (the web page, REST, the WebSocket `/ws/{session_id}`) and the
operator's page; `jipsa ask` is a client of it (services/ask).

It records what the person asks as events in the store and tells them what happens by following the
log and the projections. From the top down (README.md has the table):

- bootstrap.py, app.py     settings in, the app assembled and served (`python -m services.gateway`)
- web/                     the person's page and REST, documents, the map
- socket/                  the WebSocket: frames in, the feed's messages out
- operator/                the operator's page and its API, behind JIPSA_OPERATOR_TOKEN
- health.py                /livez, /readyz (and /healthz)
- ports.py                 what the routes share
- handlers.py              a request checked against the session's runs and appended, safe under races
- frames/                  client frames parsed, checked against the run, made events (pure)
- feed/                    the log follower, its reads, event -> message, each socket's outbox
- held_bus.py, limits.py, sessions.py, settings.py
"""
