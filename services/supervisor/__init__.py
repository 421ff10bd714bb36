"""The supervisor: each run as an event-sourced aggregate that dispatches, retries, times out and answers,
and ends every run that cannot go on with RunFailed (ending.py, watchdog.py)."""
