"""What the person is told: the one log follower per process (follower.py) reads the log and the
projections (reads.py), renders each event once as a server message (messages.py, pure) and fans it out
to every open socket's outbox (outbox.py: ordered, de-duplicated)."""
