"""The WebSocket `/ws/{session_id}` (endpoint.py): the person's frames in, checked and recorded by the
handlers; the messages the feed (../feed) renders from the log out, in order, resumable."""
