"""`jipsa ask` and `jipsa memory`, the terminal client: it talks to a running gateway only over HTTP and
the WebSocket, as any client would, so it imports the published wire (contracts) and nothing of the
gateway's server.

- command.py  the `ask` command: a session over REST, the question over the WebSocket, the answers, the
              documents saved, the exit status
- view.py     what the person has been told about their run (a fold over the messages), the `--json` object
- screen.py   the terminal display: the plan, a live todo table, the answer
- person.py   the person the terminal asks as: its token kept in the person file, a session of theirs
- memory.py   the `memory` commands: what Jipsa remembers of the person, forgetting it, remembering off/on
"""
