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

Rendering, spellings and literals are Milvus's own, written once in ``adapters.milvus.language`` (``Milvus``,
with this target's field kinds: ``d`` is a ``date`` field, its ISO text compared by a range); ``equivalent = (1, 2)``:
the ``spelling`` oracle compares spellings 1 and 2 with 0.

Milvus Lite 3.2 defects the oracles find (each recorded in ``bench/repro``): ``not in`` (pyarrow evaluator) and
``not ARRAY_CONTAINS`` / ``array_length`` (row-by-row evaluator, chosen as soon as an expression holds an array
function) select null rows, so the two evaluators disagree (``spelling``, ``conjunct``:
``fuzz_milvus_null_backends.py``, ``milvus_not_in_null.py``); ``ARRAY_CONTAINS(nums, -1)`` does not parse (every
oracle, as an error: ``fuzz_milvus_negative_contains.py``); an integer against a float raises past 2^53
(``milvus_int_float.py``; an integer literal past 2^53 against ``x`` always raises); the INVERTED index truncates a
float compared with an INT64 field (``index``: ``fuzz_milvus_index_float.py``).
"""

from __future__ import annotations

from typing import Any

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.milvus.language import Milvus
from filterproof.fuzz.generate import BY_NAME

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
KINDS = {key: BY_NAME[key].kind for key in SCHEMA}
"""The kind of value each field holds, which the renderer checks every value against."""


def expression(expr: Expr, spelling: int = 0) -> str:
    """The Milvus boolean expression for ``expr`` over this target's fields."""
    return Milvus(KINDS, spelling).render(expr)
