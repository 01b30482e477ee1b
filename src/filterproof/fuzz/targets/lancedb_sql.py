"""LanceDB's filter language: a DataFusion SQL ``WHERE`` string over typed Arrow columns (each field's type
below); the store and the read paths are ``lancedb``'s.

======= ================ ===============================================================
field   Arrow type       stored
======= ================ ===============================================================
id      string           the document's id (not null); ``vector`` a 2-d float32 point
s, t    string           the text as given (NUL, quotes, backslashes, newlines: Arrow
                         and DataFusion hold them all)
n       int64            the integer (the generator's are all within int64)
x       float64          the float
d       date32           the document's ISO date string, parsed on write
b       bool             the boolean
tags    list<string>     the list, null elements and ``[]`` included
nums    list<int64>      the list, null elements and ``[]`` included
======= ================ ===============================================================

A missing key is a null in its column (a typed column cannot tell the two apart:
``Allows(absent=False)``, so the generator writes explicit nulls), and a column holds
one type (``mixed=False``).

The null rule, written down once: SQL's three-valued logic (LanceDB's documentation:
"a comparison against null is unknown, and NOT unknown is still unknown"; a ``WHERE``
keeps the rows where the filter is true), so NOT is not the complement
(``two_valued = False``). ``array_has``/``array_has_any`` on a null list is null;
``array_has_any(col, [])`` is false even on a null list; a null element holds nothing
(``array_has(['a', NULL], 'b')`` is false, not null: the neutral rule; measured, lancedb 0.40).

Rendering, spellings and literals are LanceDB's own, written once in ``adapters.lancedb.language``
(``LanceDB``, with this target's field kinds: ``d`` a date32 column); ``equivalent = (1,)``: the
``spelling`` oracle compares spelling 1 with 0.
"""

from __future__ import annotations

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.lancedb.language import LanceDB
from filterproof.fuzz.generate import FIELDS

KINDS = {f.name: f.kind for f in FIELDS}
"""The kind of value each column holds, which the renderer checks every value against."""


def sql(expr: Expr, spelling: int = 0) -> str:
    """The filter as a DataFusion SQL expression over this target's columns."""
    return LanceDB(KINDS, spelling).render(expr)
