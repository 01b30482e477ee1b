"""The twin record and the way values are shown in messages (every twin must print unlike its original)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Twin:
    """``twin`` is ``value`` after ``family``/``name``: different to the policy, equal to some store."""

    field: str
    family: str
    name: str
    value: Any
    twin: Any

    def __str__(self) -> str:
        return f"{self.field} {self.family} twin ({self.name}) {shown(self.twin)} of {shown(self.value)}"



def _plain(c: str) -> bool:
    """A character that prints as itself and as nothing else: no invisible, combining or compatibility form."""
    return (c == " " or (c.isprintable() and not c.isspace())) and not unicodedata.combining(c) and (
        unicodedata.normalize("NFKC", c) == c) and unicodedata.category(c) != "Cf"


def _escaped(c: str) -> str:
    if c in "\\'":
        return "\\" + c
    return c if _plain(c) else c.encode("unicode_escape").decode()


LONG_STRING = 100
"""A longer string is shown by its ends and its length (the size checks' identities run to 20,000 characters)."""
LONG_LIST = 12
"""A longer list is shown by its length, its first three items and its last."""


def shown(value: Any) -> str:
    """``repr`` with every character that could print like another escaped: two different identities never
    print alike (NFC and NFD, a no-break space, a zero-width space, a full-width letter, the Kelvin sign).
    Long strings and lists are abbreviated to their ends and length."""
    if isinstance(value, str):
        if len(value) > LONG_STRING:
            return f"{shown(value[:40])}...{shown(value[-40:])} ({len(value):,} characters)"
        return "'" + "".join(map(_escaped, value)) + "'"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{shown(k)}: {shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple) and len(value) > LONG_LIST:
        return f"({len(value):,} items: {', '.join(shown(v) for v in value[:3])}, ..., {shown(value[-1])})"
    if isinstance(value, list | tuple):
        inner = ", ".join(shown(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)
