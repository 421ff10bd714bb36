"""The supervisor: each run as an event-sourced aggregate that dispatches, retries, times out and answers."""
