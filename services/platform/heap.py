"""What a service builds as it starts (the legal index and its postings, the statutes, the rule books,
the models' schemas) lives as long as the process: `settle` moves it out of the garbage collector's
sight once it is built, and makes the young collections rarer.

Python's full collections walk every tracked object. In one process holding every service, a full
collection took 180-225 ms in the middle of a run (gc callbacks, 200 market questions in a row), and
those runs took three to four times the median. Frozen objects are never walked again (gc.freeze); what
the process makes later is collected as before. The models' validators are the costly part to walk: a
full collection of the 51,000 objects the projector imports took 16-21 ms, where 70,000 plain dicts
and lists took 3 ms.

A young collection runs whenever the objects made outweigh those freed by a threshold, 700 by
default. A hop makes and drops thousands (rows, envelopes, models), so at 700 it ran several times a
hop: the compare bench's 50-concurrent batch (100 market questions, every service in one process)
spent 355-389 ms of its 5.1-5.6 s of CPU in 445-459 collections, in three runs. At YOUNG_THRESHOLD it
spent 26-42 ms in 5 collections, in three runs alternating with those. What a young collection finds
is cycles (most objects are freed by their reference counts), so collecting them later holds at most
that many more objects a while longer.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000


def settle() -> None:
    """Call once the service is built, before it takes work."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
