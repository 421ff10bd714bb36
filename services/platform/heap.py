"""What a service builds as it starts (the legal index and its postings, the statutes, the rule books,
the models' schemas) lives as long as the process: `settle` moves it out of the garbage collector's
sight once it is built, and makes the young collections rarer.

Python's full collections walk every tracked object, so a full collection in the middle of a run
walked everything built at start and held that run up; the models' validators are the costly part to
walk. Frozen objects are never walked again (gc.freeze); what the process makes later is collected as
before.

A young collection runs whenever the objects made outweigh those freed by a threshold, 700 by
default. A hop makes and drops thousands (rows, envelopes, models), so at 700 it runs several times a
hop. What a young collection finds is cycles (most objects are freed by their reference counts), so
collecting them later holds at most that many more objects a while longer.

What each of these saves, measured: docs/hot-path.md ("The process").
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
