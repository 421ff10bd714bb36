"""What a client sends: its frames parsed (protocol.py), checked against what the run waits for from its
person (run_waits.py, folded from the run's stream) and turned into the person's events (person_events.py).
All pure; the handlers (../handlers.py) read the run and record the event."""
