"""Text as Postgres can hold it: its text and jsonb refuse U+0000 and an unpaired surrogate (one that
JSON's \\u escapes left alone; a paired one was decoded to its character), so every service decides
here what to do with them before the store is asked to take them."""

from __future__ import annotations

import re

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
# JSON's escape of U+0000 where it is one: after an even number of backslashes (`\\u0000` is a
# backslash and the text "u0000").
_NUL_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u0000")


def is_storable(text: str) -> bool:
    return _UNSTORABLE.search(text) is None


def storable(text: str) -> str:
    """A pydantic validator for free text a person sends: refuses what Postgres cannot hold."""
    if not is_storable(text):
        raise ValueError("text may not contain U+0000 or unpaired surrogates")
    return text


def escaped(text: str) -> str:
    """`text` with those characters written as escapes, for a reason stored to be read (an error that
    quotes a bad value keeps showing where it was)."""
    return text.encode("utf-8", "backslashreplace").decode().replace("\x00", "\\x00")


def stripped(reply: str) -> str:
    """A model's reply without those characters, as text and as JSON's escapes of U+0000: stray output,
    which would otherwise fail the append of the event that carries the answer, on every attempt."""
    return _UNSTORABLE.sub("", _NUL_ESCAPE.sub(r"\1", reply))
