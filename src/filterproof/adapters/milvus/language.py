"""Milvus's filter language, a boolean expression string: its literals, and the neutral filter written in it, once.

The ``milvus`` adapter builds its policy as a neutral filter and writes it here (``expr``); the ``milvus`` fuzz
targets render their generated filters here (``fuzz.targets.milvus_expr``); the matrix writes langchain-milvus's
``expr=`` here (``matrix.languages``). A quoting rule fixed for one is fixed for all three.

``Milvus(fields, spelling, empty)`` renders ``adapters.filterlang`` trees. ``fields`` maps each field to the kind
of value it holds (text, int, float, bool, date: an ISO date held as VARCHAR text, text_list, int_list); a value
of another kind than its field's is a type error in Milvus ("comparison between incompatible types") and raises
``Unsupported`` (an integer and a float compare as numbers). Without ``fields`` (the matrix: an application's
keys) a key must be a plain field name, a value is written as its own kind, and ``is_empty`` is ``k is null``.

Every child of ``and``/``or``/``not`` is parenthesized; an empty AND is ``true``, an empty OR ``false``
(``empty``: the matrix writes ``()``, what an application that joins no clauses sends, which Milvus refuses).
Spellings, all documented as the same filter:

0. ``k == v``, ``k != v``, ``k in [..]``, ``k not in [..]``, ``k > v``..., ``ARRAY_CONTAINS(k, v)``,
   ``ARRAY_CONTAINS_ANY(k, [..])``, ``k is null``, ``k is not null``, is_empty of a list
   ``(k is null or array_length(k) == 0)`` (of a scalar: ``k is null``), lowercase ``and or not``;
1. IN as the membership it is (equal to one of the values): ``eq`` as ``k in [v]``, ``ne`` as ``k not in [v]``,
   ``in`` as ``(k == a or k == b)``, ``nin`` as ``(k != a and k != b)``, ``contains`` as
   ``ARRAY_CONTAINS_ANY(k, [v])``, ``contains_any`` as ``(ARRAY_CONTAINS(k, a) or ...)``, ``exists`` as
   ``NOT (k IS NULL)``; keywords in capitals (``AND OR NOT IS NULL``);
2. the negations written with ``not``: ``ne`` as ``not (k == v)``, ``nin`` as ``not (k in [..])``.

Values (``quoted``, ``literal``): a string is ``"..."`` with ``\\`` and ``"`` escaped, and newline and carriage
return as ``\\n`` and ``\\r``: Milvus Lite refuses either raw in a literal ("unterminated string literal
(newline)") and reads those escapes, as a server (Go escapes) does; NUL, tab and every other character go in
raw, which both read as themselves (``tests/fuzz/test_fuzz_milvus.py`` round-trips every string of the fuzz
generator's pools through Lite). An integer is written in decimal, a float by ``repr`` (always with ``.`` or
``e``), a bool ``true``/``false``; a non-finite float, and a date anywhere but a range on a date field (as its
ISO text), raise ``Unsupported``. In spellings 1 and 2 a negative number inside ``ARRAY_CONTAINS(k, ...)`` is
parenthesized, ``(-1)``: Lite's parser refuses the bare form there (spelling 0 keeps the documented one).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported

ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}
"""What a string literal escapes: the two that would end or bend it, and the two line breaks Lite refuses raw."""
ELEMENT = {"text": "text", "date": "text", "int": "int", "float": "float", "bool": "bool", "text_list": "text",
           "int_list": "int"}
"""The kind of the values a field of each kind is compared with (a list field: its elements')."""
NUMBER = ("int", "float")
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quoted(value: str) -> str:
    """A Milvus string literal holding ``value`` exactly (the escapes above; everything else as it is)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return '"' + "".join(ESCAPES.get(c, c) for c in value) + '"'


def value_kind(value: Any) -> str:
    """text, bool, int, float or date; TypeError for anything else."""
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("text", str), ("date", date)):
        if isinstance(value, types):
            return kind
    raise TypeError(f"no Milvus literal for {value!r}")


class Words:
    """The keywords of one spelling: lowercase (0, 2) or capitals (1)."""

    def __init__(self, spelling: int) -> None:
        upper = spelling == 1
        self.and_, self.or_, self.not_ = ("AND", "OR", "NOT") if upper else ("and", "or", "not")
        self.is_null, self.is_not_null = ("IS NULL", "IS NOT NULL") if upper else ("is null", "is not null")

    @staticmethod
    def join(word: str, parts: Sequence[str]) -> str:
        return f" {word} ".join(f"({p})" for p in parts)


@dataclass(frozen=True)
class Milvus:
    """The neutral filter as a Milvus expression; see the module's docstring for each parameter."""

    fields: Mapping[str, str] | None = None
    spelling: int = 0
    empty: tuple[str, str] = ("true", "false")
    """How an AND and an OR of no parts are written."""

    @property
    def words(self) -> Words:
        return Words(self.spelling)

    def field(self, key: str) -> str | None:
        """The kind of field ``key`` (None without ``fields``); TypeError or ``Unsupported`` for no field."""
        if self.fields is None:
            if not FIELD_NAME.fullmatch(key):
                raise Unsupported(f"{key!r} is no Milvus field name (a dynamic key would need $meta[...])")
            return None
        if key not in self.fields:
            raise TypeError(f"unknown field {key!r}")
        return self.fields[key]

    def literal(self, key: str, value: Any) -> str:
        """``value`` as a literal compared with field ``key``; ``Unsupported`` for a pair of kinds Milvus refuses."""
        kind, have = self.field(key), value_kind(value)
        want = have if kind is None else ELEMENT[kind]
        if have == "date":
            raise Unsupported("milvus: a date is compared by a range on a date field only (it holds the ISO text)")
        if not (have == want or (have in NUMBER and want in NUMBER)):
            raise Unsupported("milvus: a field compared with a value of another type is a type error")
        if have == "bool":
            return "true" if value else "false"
        if have == "text":
            return quoted(value)
        if have == "float" and not math.isfinite(value):
            raise Unsupported("milvus: no literal for an infinite or NaN float")
        return repr(value)

    def element(self, key: str, value: Any) -> str:
        """A literal as the second argument of ``ARRAY_CONTAINS``: negative parenthesized in spellings 1, 2."""
        text = self.literal(key, value)
        return f"({text})" if self.spelling and text.startswith("-") else text

    def values(self, key: str, listed: Sequence[Any]) -> str:
        return "[" + ", ".join(self.literal(key, v) for v in listed) + "]"

    def render(self, expr: Expr) -> str:
        """The Milvus boolean expression for ``expr``."""
        w = self.words
        match expr:
            case Cond():
                return self.condition(expr)
            case And(parts):
                return w.join(w.and_, [self.render(p) for p in parts]) if parts else self.empty[0]
            case Or(parts):
                return w.join(w.or_, [self.render(p) for p in parts]) if parts else self.empty[1]
            case Not(part):
                return f"{w.not_} ({self.render(part)})"
        raise TypeError(f"unknown expression {expr!r}")

    def condition(self, c: Cond) -> str:
        kind = self.field(c.key)
        is_list = kind is not None and kind.endswith("list")
        if is_list and c.op in ("eq", "ne", "in", "nin"):
            raise Unsupported("milvus: == and in compare a scalar field, not an ARRAY")
        if kind is not None and not is_list and c.op in ("contains", "contains_any"):
            raise Unsupported("milvus: ARRAY_CONTAINS takes an ARRAY field")
        if c.op in ("gt", "gte", "lt", "lte"):
            return self.comparison(c.op, c.key, c.value, kind)
        construct = getattr(self, "in_" if c.op == "in" else c.op)  # one method per remaining operator
        return construct(c.key, c.value, is_list)

    # -- one method per construct ------------------------------------------------------------

    def eq(self, key: str, value: Any, _: bool) -> str:
        text = self.literal(key, value)
        return f"{key} in [{text}]" if self.spelling == 1 else f"{key} == {text}"

    def ne(self, key: str, value: Any, _: bool) -> str:
        if self.spelling == 1:
            return f"{key} not in [{self.literal(key, value)}]"
        if self.spelling == 2:
            return f"not ({key} == {self.literal(key, value)})"
        return f"{key} != {self.literal(key, value)}"

    def in_(self, key: str, listed: tuple[Any, ...], _: bool) -> str:
        if self.spelling == 1 and listed:
            return Words.join("OR", [f"{key} == {self.literal(key, v)}" for v in listed])
        return f"{key} in {self.values(key, listed)}"

    def nin(self, key: str, listed: tuple[Any, ...], _: bool) -> str:
        if self.spelling == 1 and listed:
            return Words.join("AND", [f"{key} != {self.literal(key, v)}" for v in listed])
        if self.spelling == 2:
            return f"not ({key} in {self.values(key, listed)})"
        return f"{key} not in {self.values(key, listed)}"

    def comparison(self, op: str, key: str, value: Any, kind: str | None) -> str:
        """A range: a number against a number field, a date (as its ISO text) or a text against a date field."""
        sign = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[op]
        if kind is not None and kind.endswith("list"):
            raise Unsupported("milvus: a range on an ARRAY field is a type error")
        if isinstance(value, date):
            if kind != "date":
                raise Unsupported("milvus: a date is compared by a range on a date field only (it holds the ISO text)")
            return f"{key} {sign} {quoted(value.isoformat())}"
        if value_kind(value) == "bool" or kind == "bool":
            raise Unsupported("milvus: no range on a boolean")
        return f"{key} {sign} {self.literal(key, value)}"

    def contains(self, key: str, value: Any, _: bool) -> str:
        if self.spelling == 1:
            return f"ARRAY_CONTAINS_ANY({key}, [{self.literal(key, value)}])"
        return f"ARRAY_CONTAINS({key}, {self.element(key, value)})"

    def contains_any(self, key: str, listed: tuple[Any, ...], _: bool) -> str:
        if self.spelling == 1 and listed:
            return Words.join("OR", [f"ARRAY_CONTAINS({key}, {self.element(key, v)})" for v in listed])
        return f"ARRAY_CONTAINS_ANY({key}, {self.values(key, listed)})"

    def is_null(self, key: str, _: Any, __: bool) -> str:
        return f"{key} {self.words.is_null}"

    def exists(self, key: str, _: Any, __: bool) -> str:
        w = self.words
        return f"{w.not_} ({key} {w.is_null})" if self.spelling == 1 else f"{key} {w.is_not_null}"

    def is_empty(self, key: str, _: Any, is_list: bool) -> str:
        """Missing, null or ``[]``: a scalar field is empty when null; a list also when it has no element."""
        w = self.words
        return f"{key} {w.is_null} {w.or_} array_length({key}) == 0" if is_list else f"{key} {w.is_null}"
