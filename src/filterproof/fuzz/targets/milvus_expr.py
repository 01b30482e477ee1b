"""Milvus's filter language (boolean expressions): the neutral filter rendered as an expression string, for the
fields of the ``milvus`` target's collections (each field's Milvus type below); the store and the read paths
are ``milvus``'s.

===== ===================== =========================================================================
field Milvus type           stored
===== ===================== =========================================================================
s, t  VARCHAR               the text as given (NUL and every control character are stored and compared
                            as they are)
n     INT64                 the integer
x     DOUBLE                the float
d     VARCHAR               the ISO date string as given (``2026-09-08``): a range on it compares text,
                            which for these four-digit-year ``YYYY-MM-DD`` strings is the date order;
                            the ``milvus`` backend stores INT64 YYYYMMDD instead, this target keeps the
                            document's value
b     BOOL                  the boolean
tags  ARRAY<VARCHAR>        the list (empty lists kept)
nums  ARRAY<INT64>          the list
===== ===================== =========================================================================

A missing key or a null is a null (``absent=False``); a value of another kind has no field (``mixed=False``); Milvus
refuses a null inside an ARRAY on insert (``null_in_lists=False``). The ``indexed`` collection holds the same rows
with an INVERTED index on every scalar field (s, t, n, x, d, b): Milvus Lite implements no other scalar index
(STL_SORT, BITMAP: "not implemented; supported: INVERTED") and none on an ARRAY field. Both are flushed after each
load, and the load waits for Lite's background index build (``settle``): Lite builds a scalar index on a sealed
segment only, asynchronously, and reads it (``search/indexed_filter.py``) for an expression made of comparisons,
``in``, ``is null``, ``and`` and ``or`` on indexed fields alone (anything else, ``not`` included, is evaluated on
the rows, as in ``plain``). A load costs ~60 ms (~5 ms without the flush).

Milvus's null rule, written down once (the documentation's "Nullable & Default": filtering results on null
values "are all false, indicating that they will not be selected"): a condition on a null field never selects
the row, under ``not`` too: three-valued logic, ``two_valued = False`` (``not (n == 1)`` does not select a null
``n``). ``is null`` / ``is not null`` test the whole field (an ARRAY's elements are not looked at).

Rendering (``render``; every child of ``and``/``or``/``not`` parenthesized; an empty AND is ``true``, an empty OR
``false``). Spellings, all three documented as the same filter (``equivalent = (1, 2)``: the ``spelling`` oracle
compares them):

0. ``k == v``, ``k != v``, ``k in [..]``, ``k not in [..]``, ``k > v``..., ``ARRAY_CONTAINS(k, v)``,
   ``ARRAY_CONTAINS_ANY(k, [..])``, ``k is null``, ``k is not null``, is_empty of a list
   ``(k is null or array_length(k) == 0)`` (of a scalar: ``k is null``), lowercase ``and or not``;
1. IN as the membership it is (equal to one of the values): ``eq`` as ``k in [v]``, ``ne`` as ``k not in [v]``,
   ``in`` as ``(k == a or k == b)``, ``nin`` as ``(k != a and k != b)``, ``contains`` as
   ``ARRAY_CONTAINS_ANY(k, [v])``, ``contains_any`` as ``(ARRAY_CONTAINS(k, a) or ...)``, ``exists`` as
   ``NOT (k IS NULL)``; keywords in capitals (``AND OR NOT IS NULL``);
2. the negations written with ``not``: ``ne`` as ``not (k == v)``, ``nin`` as ``not (k in [..])``.

Values: a string is ``"..."`` with ``\\`` and ``"`` escaped (the ``milvus`` backend's ``expr.quoted``), and also
newline and carriage return as ``\\n`` and ``\\r``: Lite refuses either raw in a literal ("unterminated string
literal (newline)") and reads those escapes; NUL, tab and every other character go in raw, which Lite reads as
themselves (``tests/test_fuzz_milvus.py`` checks every string of the generator's pools round-trips). An integer
is written in decimal, a float by ``repr`` (always with ``.`` or ``e``), a bool ``true``/``false``. An integer
and a float compare as numbers (both are documented numeric comparisons); any other pair of kinds is a type error
in Milvus ("comparison between incompatible types") and raises ``Unsupported``, as do a date anywhere but a
range on ``d`` and a non-finite float. In spellings 1 and 2 a negative number inside ``ARRAY_CONTAINS(k, ...)``
is parenthesized, ``(-1)``: Lite's parser refuses the bare form there (spelling 0 keeps the documented one).

Milvus Lite 3.2 defects the oracles find (each recorded in ``bench/repro``): ``not in`` (pyarrow evaluator) and
``not ARRAY_CONTAINS`` / ``array_length`` (row-by-row evaluator, chosen as soon as an expression holds an array
function) select null rows, so the two evaluators disagree (``spelling``, ``conjunct``:
``fuzz_milvus_null_backends.py``, ``milvus_not_in_null.py``); ``ARRAY_CONTAINS(nums, -1)`` does not parse (every
oracle, as an error: ``fuzz_milvus_negative_contains.py``); an integer against a float raises past 2^53
(``milvus_int_float.py``; an integer literal past 2^53 against ``x`` always raises); the INVERTED index truncates a
float compared with an INT64 field (``index``: ``fuzz_milvus_index_float.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Any

from filterproof.fuzz.generate import BY_NAME
from filterproof.fuzz.lang import And, Cond, Expr, Not, Or
from filterproof.fuzz.target import Unsupported

SCHEMA: dict[str, tuple[str, dict[str, Any]]] = {
    "s": ("VARCHAR", {"max_length": 4096}),
    "t": ("VARCHAR", {"max_length": 4096}),
    "n": ("INT64", {}),
    "x": ("DOUBLE", {}),
    "d": ("VARCHAR", {"max_length": 64}),
    "b": ("BOOL", {}),
    "tags": ("ARRAY", {"element_type": "VARCHAR", "max_capacity": 64, "max_length": 4096}),
    "nums": ("ARRAY", {"element_type": "INT64", "max_capacity": 64}),
}
"""Each FIELD's Milvus type and its parameters (every one ``nullable=True``)."""
NUMBER = ("int", "float")


# -- values ---------------------------------------------------------------------------------


def quoted(value: str) -> str:
    """A Milvus string literal holding ``value`` exactly: ``\\`` and ``"`` escaped, newline and CR as ``\\n``
    ``\\r`` (Lite refuses them raw), everything else (NUL, tab, other controls) as it is."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def value_kind(value: Any) -> str:
    """text, bool, int, float or date; TypeError for anything else."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "text"
    if isinstance(value, date):
        return "date"
    raise TypeError(f"no Milvus literal for {value!r}")


def element_kind(key: str) -> str:
    """The kind of the values field ``key`` is compared with (a list field: its elements')."""
    if key not in SCHEMA:
        raise TypeError(f"unknown field {key!r}")
    return {"text": "text", "date": "text", "int": "int", "float": "float", "bool": "bool", "text_list": "text",
            "int_list": "int"}[BY_NAME[key].kind]


def literal(key: str, value: Any) -> str:
    """``value`` as a literal compared with field ``key``; ``Unsupported`` for a pair of kinds Milvus refuses."""
    want, have = element_kind(key), value_kind(value)
    if have == "date":
        raise Unsupported("milvus: a date is compared by a range on d only (d holds the ISO text)")
    if not (have == want or (have in NUMBER and want in NUMBER)):
        raise Unsupported("milvus: a field compared with a value of another type is a type error")
    if have == "bool":
        return "true" if value else "false"
    if have == "text":
        return quoted(value)
    if have == "float" and not math.isfinite(value):
        raise Unsupported("milvus: no literal for an infinite or NaN float")
    return repr(value)


def element(key: str, value: Any, spelling: int) -> str:
    """A literal as the second argument of ``ARRAY_CONTAINS``: a negative number parenthesized in spellings 1, 2."""
    text = literal(key, value)
    return f"({text})" if spelling and text.startswith("-") else text


def values(key: str, listed: Sequence[Any]) -> str:
    return "[" + ", ".join(literal(key, v) for v in listed) + "]"


class Words:
    """The keywords of one spelling: lowercase (0, 2) or capitals (1)."""

    def __init__(self, spelling: int) -> None:
        upper = spelling == 1
        self.and_, self.or_, self.not_ = ("AND", "OR", "NOT") if upper else ("and", "or", "not")
        self.is_null, self.is_not_null = ("IS NULL", "IS NOT NULL") if upper else ("is null", "is not null")

    def join(self, word: str, parts: Sequence[str]) -> str:
        return f" {word} ".join(f"({p})" for p in parts)


# -- one function per construct -------------------------------------------------------------


def eq(key: str, value: Any, spelling: int) -> str:
    return f"{key} in [{literal(key, value)}]" if spelling == 1 else f"{key} == {literal(key, value)}"


def ne(key: str, value: Any, spelling: int) -> str:
    if spelling == 1:
        return f"{key} not in [{literal(key, value)}]"
    if spelling == 2:
        return f"not ({key} == {literal(key, value)})"
    return f"{key} != {literal(key, value)}"


def in_(key: str, listed: tuple[Any, ...], spelling: int) -> str:
    if spelling == 1 and listed:
        return Words(1).join("OR", [f"{key} == {literal(key, v)}" for v in listed])
    return f"{key} in {values(key, listed)}"


def nin(key: str, listed: tuple[Any, ...], spelling: int) -> str:
    if spelling == 1 and listed:
        return Words(1).join("AND", [f"{key} != {literal(key, v)}" for v in listed])
    if spelling == 2:
        return f"not ({key} in {values(key, listed)})"
    return f"{key} not in {values(key, listed)}"


def comparison(op: str, key: str, value: Any) -> str:
    """A range: a number against n or x, a date (as its ISO text) or a text against d."""
    sign = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[op]
    kind = BY_NAME[key].kind if key in SCHEMA else None
    if kind is None:
        raise TypeError(f"unknown field {key!r}")
    if kind.endswith("list"):
        raise Unsupported("milvus: a range on an ARRAY field is a type error")
    if isinstance(value, date):
        if kind != "date":
            raise Unsupported("milvus: a date is compared by a range on d only (d holds the ISO text)")
        return f"{key} {sign} {quoted(value.isoformat())}"
    if value_kind(value) == "bool" or kind == "bool":
        raise Unsupported("milvus: no range on a boolean")
    return f"{key} {sign} {literal(key, value)}"


def contains(key: str, value: Any, spelling: int) -> str:
    if spelling == 1:
        return f"ARRAY_CONTAINS_ANY({key}, [{literal(key, value)}])"
    return f"ARRAY_CONTAINS({key}, {element(key, value, spelling)})"


def contains_any(key: str, listed: tuple[Any, ...], spelling: int) -> str:
    if spelling == 1 and listed:
        return Words(1).join("OR", [f"ARRAY_CONTAINS({key}, {element(key, v, spelling)})" for v in listed])
    return f"ARRAY_CONTAINS_ANY({key}, {values(key, listed)})"


def is_null(key: str, spelling: int) -> str:
    return f"{key} {Words(spelling).is_null}"


def exists(key: str, spelling: int) -> str:
    w = Words(spelling)
    return f"{w.not_} ({key} {w.is_null})" if spelling == 1 else f"{key} {w.is_not_null}"


def is_empty(key: str, spelling: int) -> str:
    """Missing, null or ``[]``: a scalar field is empty when null; a list also when it has no element."""
    w = Words(spelling)
    if not BY_NAME[key].kind.endswith("list"):
        return f"{key} {w.is_null}"
    return f"{key} {w.is_null} {w.or_} array_length({key}) == 0"


def condition(c: Cond, spelling: int) -> str:
    if c.key not in SCHEMA:
        raise TypeError(f"unknown field {c.key!r}")
    is_list = BY_NAME[c.key].kind.endswith("list")
    if is_list and c.op in ("eq", "ne", "in", "nin"):
        raise Unsupported("milvus: == and in compare a scalar field, not an ARRAY")
    if not is_list and c.op in ("contains", "contains_any"):
        raise Unsupported("milvus: ARRAY_CONTAINS takes an ARRAY field")
    match c.op:
        case "eq":
            return eq(c.key, c.value, spelling)
        case "ne":
            return ne(c.key, c.value, spelling)
        case "in":
            return in_(c.key, c.value, spelling)
        case "nin":
            return nin(c.key, c.value, spelling)
        case "gt" | "gte" | "lt" | "lte":
            return comparison(c.op, c.key, c.value)
        case "contains":
            return contains(c.key, c.value, spelling)
        case "contains_any":
            return contains_any(c.key, c.value, spelling)
        case "is_null":
            return is_null(c.key, spelling)
        case "is_empty":
            return is_empty(c.key, spelling)
        case "exists":
            return exists(c.key, spelling)
    raise TypeError(f"unknown operator {c.op!r}")


def expression(expr: Expr, spelling: int = 0) -> str:
    """The Milvus boolean expression for ``expr``."""
    w = Words(spelling)
    match expr:
        case Cond():
            return condition(expr, spelling)
        case And(parts):
            return w.join(w.and_, [expression(p, spelling) for p in parts]) if parts else "true"
        case Or(parts):
            return w.join(w.or_, [expression(p, spelling) for p in parts]) if parts else "false"
        case Not(part):
            return f"{w.not_} ({expression(part, spelling)})"
    raise TypeError(f"unknown expression {expr!r}")
