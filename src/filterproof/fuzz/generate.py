"""Worlds and filters that reach the corners: seeded, so a seed and a case number name one case exactly.

A world is a few documents over a fixed set of fields (``FIELDS``), so that a store
with typed columns can give each its type. Each field of a document is missing, null,
or a value from the corner pools: strings from the identity twin catalogues (case,
Unicode forms, whitespace, NUL, quotes, query words), integers at the 32-, 53- and
64-bit edges, floats, ISO dates at encoding boundaries, empty lists and lists that
hold a null; now and then a value of another field's kind, where the target stores
mixed types. Filters draw their values mostly from the world's own, so they match
something, and nest ``And``/``Or``/``Not`` a few levels deep.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import OPS, And, Cond, Expr, Not, Or
from filterproof.conformance.worlds.twins import NAME_VALUES, STRING_FAMILIES, string_twins
from filterproof.conformance.worlds.twins.strings import hash_twins
from filterproof.errors import UsageError

INTS = (0, 1, -1, 7, 2**31 - 1, 2**31, -(2**31), 2**53, 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63))
FLOATS = (0.5, -0.0, 1.5, 3.0, -2.25, 2.0**53, 1e300, -1e-300)
DAYS = ("1970-01-01", "1969-12-31", "2000-02-29", "2026-09-08", "2026-09-09", "2038-01-19", "2038-01-20",
        "0001-01-01", "9999-12-31")
WORDS = ("a", "b", "c")
LISTS = ("text_list", "int_list")


FUZZ_SEEDS = ("Ácme", "Kio\u0308sk-straße-\ufb01n")
FUZZ_FAMILIES = tuple(family for family in STRING_FAMILIES if family not in ("astral", "controls"))
"""The strings the fuzzer's twins are made of and their families, frozen so that a seed replays the same run (the
known findings' tests pin seeds): a family or seed the suite's catalogues gain joins the fuzzer once those
tests' findings are measured again with it (the astral and control-character families, 2026-12-05, not yet)."""


def _strings() -> tuple[str, ...]:
    frozen = [t for seed in FUZZ_SEEDS for t in string_twins("tenant", seed) if t.family in FUZZ_FAMILIES]
    frozen += hash_twins("tenant")
    twins = [t.twin for t in frozen] + [t.value for t in frozen]
    names = [v for family in ("query words", "quotes and escapes", "numbers as text") for v in NAME_VALUES[family]]
    # No lone surrogate: it is not UTF-8, so no engine's client can send it (the suite asks how adapters keep one).
    values = ["", " ", "a\x00b", "\x00", *twins, *names]
    return tuple(dict.fromkeys(v for v in values if not any(0xD800 <= ord(c) < 0xE000 for c in v)))


STRINGS = _strings()


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    """text, int, float, bool, date (an ISO date string), text_list, int_list."""
    pool: tuple[Any, ...]


FIELDS: tuple[Field, ...] = (
    Field("s", "text", STRINGS),
    Field("t", "text", WORDS),
    Field("n", "int", INTS),
    Field("x", "float", FLOATS),
    Field("d", "date", DAYS),
    Field("b", "bool", (True, False)),
    Field("tags", "text_list", (*WORDS, *STRINGS[:12])),
    Field("nums", "int_list", INTS),
)
BY_NAME = {f.name: f for f in FIELDS}


@dataclass(frozen=True)
class Allows:
    """What a target can store: a world holds only what every target it goes to allows."""

    nulls: bool = True
    """An explicit null (else the key is left out)."""
    absent: bool = True
    """A key left out (else an explicit null: a typed column cannot tell the two apart)."""
    lists: bool = True
    empty_lists: bool = True
    null_in_lists: bool = True
    mixed: bool = True
    """A value of another kind than the field's (a text in ``n``)."""
    nul: bool = True
    """U+0000 in text."""
    fields: tuple[str, ...] = tuple(f.name for f in FIELDS)
    ops: tuple[str, ...] = OPS
    """The operators the target's language can say at all: the generator asks no other, so that a case is not
    skipped whole for one leaf (a negation or a value the language refuses still skips it, counted)."""

    def __and__(self, other: Allows) -> Allows:
        return Allows(self.nulls and other.nulls, self.absent and other.absent, self.lists and other.lists,
                      self.empty_lists and other.empty_lists, self.null_in_lists and other.null_in_lists,
                      self.mixed and other.mixed, self.nul and other.nul,
                      tuple(f for f in self.fields if f in other.fields),
                      tuple(o for o in self.ops if o in other.ops))


class Generator:
    def __init__(self, seed: int, allows: Allows) -> None:
        self.rng = random.Random(seed)
        self.allows = allows
        self.fields = [BY_NAME[name] for name in allows.fields]
        # With every operator allowed these are the fields and OPS_BY_KIND themselves: a seed asks what it always did.
        self.ops = {kind: tuple(o for o in ops if o in allows.ops) for kind, ops in OPS_BY_KIND.items()}
        self.asked_fields = [f for f in self.fields if self.ops[f.kind]]
        if not self.asked_fields:
            raise UsageError(f"no field has an operator the targets allow ({', '.join(allows.ops) or 'none'}): "
                             "each target's allows.ops says which it can say")

    # -- documents ---------------------------------------------------------------

    def world(self, n_docs: int) -> dict[str, dict[str, Any]]:
        # A few values per field per world, so that filters and documents meet.
        self.chosen = {f.name: self.rng.sample(f.pool, min(len(f.pool), self.rng.choice((2, 3, 5)))) for f in
                       self.fields}
        return {f"d{i}": self.document() for i in range(n_docs)}

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        for field in self.fields:
            roll = self.rng.random()
            if roll < 0.25 and (self.allows.absent or self.allows.nulls):
                if (roll < 0.15 and self.allows.absent) or not self.allows.nulls:
                    continue
                doc[field.name] = None
                continue
            value = self.value(field)
            if value is not MISSING_VALUE:
                doc[field.name] = value
        return doc

    def value(self, field: Field) -> Any:
        if self.allows.mixed and self.rng.random() < 0.05:  # a list field holding a scalar, a text in n...
            if field.kind.endswith("list"):
                return self.scalar(field)
            return self.scalar(self.rng.choice([f for f in FIELDS if f.kind not in (field.kind, *LISTS)]))
        if field.kind.endswith("list"):
            return self.list_value(field)
        return self.scalar(field)

    def scalar(self, field: Field) -> Any:
        pool = self.chosen.get(field.name) or list(field.pool)
        value = self.rng.choice(pool)
        if isinstance(value, str) and "\x00" in value and not self.allows.nul:
            value = value.replace("\x00", "0")
        return value

    def list_value(self, field: Field) -> Any:
        if not self.allows.lists:
            return MISSING_VALUE
        roll = self.rng.random()
        if roll < 0.15 and self.allows.empty_lists:
            return []
        if roll < 0.2 and self.allows.null_in_lists:
            return [None]
        items = [self.scalar(field) for _ in range(self.rng.randint(1, 3))]
        if roll < 0.3 and self.allows.null_in_lists:
            items.insert(self.rng.randrange(len(items) + 1), None)
        return items

    # -- filters -----------------------------------------------------------------

    def filter(self, depth: int = 3) -> Expr:
        roll = self.rng.random()
        if depth <= 0 or roll < 0.45:
            return self.condition()
        if roll < 0.6:
            return Not(self.filter(depth - 1))
        width = self.rng.choice((0, 1, 2, 2, 3)) if self.rng.random() < 0.1 else self.rng.choice((2, 2, 3))
        parts = tuple(self.filter(depth - 1) for _ in range(width))
        return And(parts) if roll < 0.8 else Or(parts)

    def condition(self) -> Cond:
        field = self.rng.choice(self.asked_fields)
        op = self.rng.choice(self.ops[field.kind])
        if op in ("is_null", "is_empty", "exists"):
            return Cond(op, field.name)
        if op in ("in", "nin", "contains_any"):
            count = 0 if self.rng.random() < 0.1 else self.rng.choice((1, 2, 3))  # an empty list: a principal
            # with no groups, the corner where filter builders drop the clause
            return Cond(op, field.name, tuple(self.asked(field, op) for _ in range(count)))
        return Cond(op, field.name, self.asked(field, op))

    def asked(self, field: Field, op: str) -> Any:
        """A value to compare with: one the world holds, mostly; for a date field's range, a date."""
        if self.rng.random() < 0.05:  # another kind: engines differ, the metamorphic oracles still judge
            other = self.rng.choice([f for f in FIELDS if f.kind not in (field.kind, *LISTS)])
            return self.scalar(other)
        value = self.scalar(field)
        if field.kind == "date" and op in ("gt", "gte", "lt", "lte"):
            return date.fromisoformat(value) if isinstance(value, str) else date(2026, 9, 8)
        return value


MISSING_VALUE = object()
OPS_BY_KIND: Mapping[str, Sequence[str]] = {
    "text": ("eq", "ne", "in", "nin", "is_null", "is_empty", "exists"),
    "int": ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "is_null", "exists"),
    "float": ("gt", "gte", "lt", "lte", "is_null", "exists"),
    "date": ("eq", "gt", "gte", "lt", "lte", "is_null", "exists"),
    "bool": ("eq", "ne", "is_null", "exists"),
    "text_list": ("contains", "contains_any", "is_empty", "is_null", "exists"),
    "int_list": ("contains", "contains_any", "is_empty", "is_null", "exists"),
}
"""The operators asked of each kind of field. No equality on floats (Qdrant matches no float), no range on text."""
