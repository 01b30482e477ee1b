"""PostgreSQL + pgvector's filter language, SQL, written for two stores: typed columns (``pgvector-typed``) and
one JSONB document (``pgvector-jsonb``); the stores, the server and the read paths are ``pgvector``'s.

The native filter is Python source of a tuple ``(where, params)``: an SQL condition with ``%s`` placeholders and
the values psycopg binds to them (no value is ever written into the SQL text; the keys are the fixed field names).

SQL's rule, written down once: three-valued logic (``two_valued = False``): a comparison with NULL is NULL
(unknown), ``NOT NULL`` is NULL, a row is selected only when the WHERE condition is TRUE. ``is_null``,
``is_empty`` and ``exists`` are two-valued (``IS NULL`` and ``?``: never NULL). An empty ``in`` is
``= ANY('{}')``, FALSE on every row (a NULL one too), an empty ``nin`` ``<> ALL('{}')``, TRUE on every row; an
empty AND is TRUE, an empty OR FALSE.

``pgvector-typed`` stores each FIELD in a column of its kind: ``s``, ``t`` ``text``; ``n`` ``bigint``; ``x``
``double precision``; ``d`` ``date`` (the documents' ISO strings, cast); ``b`` ``boolean``; ``tags`` ``text[]``,
``nums`` ``bigint[]`` (NULL elements kept); a missing key or a null is NULL (``absent=False``), and a value of
another kind has no column (``mixed=False``); PostgreSQL text refuses U+0000 (``nul=False``). Conditions:
``s = %s``, ``s <> %s``, ``s = ANY(%s::text[])``, ``s <> ALL(...)``, ``n > %s``, ``d > %s::date``, ``tags @>
%s::text[]`` (contains), ``tags && %s::text[]`` (contains_any: NULL elements match nothing), ``s IS NULL``,
``s IS NOT NULL``, ``(tags IS NULL OR cardinality(tags) = 0)``. What SQL refuses as a type error (a text column
against an integer, a range on text, ``contains`` on a scalar column) raises ``Unsupported``; so does an integer
against the double column that is not exactly a double (``x >= 2^53 + 1`` rounds the bound: the JSONB side
compares numerics). An integer column against a float compares as doubles (PostgreSQL casts the column), and
so does the JSONB side (``numeric > float8`` is a float8 comparison). Indexed copy: a btree per scalar column,
GIN on each array.

``pgvector-jsonb`` stores the document as given in ``payload jsonb``: missing keys stay missing, JSON null, lists,
mixed types are kept (only U+0000 is refused: ``nul=False``). Every comparison reads the field through a
*view* of the kind of the value it is compared with: ``CASE WHEN jsonb_typeof(payload->'k') = 'string' THEN
payload->>'k' END`` (text), ``... = 'number' THEN (payload->'k')::numeric`` (numbers, exact),
``... = 'boolean' THEN (payload->'k')::boolean``, ``... = 'string' AND <YYYY-MM-DD> AND
pg_input_is_valid(.., 'date') THEN (payload->>'k')::date`` (dates), ``... = 'array' THEN payload->'k'`` (lists).
A missing key, a JSON null, or a JSON value of another type (a list where a scalar is asked, a string where a
number is) reads as SQL NULL: the comparison is unknown, as the neutral semantics has it, and no cast can raise
on mixed data. Conditions: ``view = %s``, ``view <> %s``, ``view > %s`` (an integer bound compares numerics
exactly, a float bound as doubles: ``numeric > float8`` casts the view, as the typed column is cast);
``view = ANY(%s::text[])`` for ``in``, one ANY per kind of value OR-ed (``s in ['a', 7]`` asks the text and the
number view), ``<> ALL`` AND-ed for ``nin`` (an empty list: one empty text array, FALSE / TRUE on every row);
``array_view @> %s::jsonb`` (contains: JSONB containment of ``[value]``, type-aware: ``"7"`` is not ``7``, ``7.0``
is ``7``; null elements match nothing; ``{"k": ["x"]}`` does not contain ``{"k": "x"}`` below the top level), one
``@>`` per value OR-ed for contains_any (an empty one is FALSE on a list, NULL elsewhere, as ``&&`` is on a typed
array); ``payload @> '{"k": null}'`` (is_null: present and JSON null; a missing key is FALSE),
``(payload ? 'k' AND payload->'k' <> 'null')`` (exists), ``COALESCE(payload->'k', 'null') IN ('null', '[]')``
(is_empty). Alone, this target also meets missing keys (is_null FALSE, is_empty TRUE, every comparison unknown),
lists where scalars are asked and scalars where lists are (unknown). Indexed copy: GIN ``jsonb_ops`` on
``payload`` (``@>``, ``?``), a btree on the view each field is mostly asked through (text for ``s``, ``t``, ``d``;
numeric, and numeric as double precision, for ``n``, ``x``; boolean for ``b``) and GIN ``jsonb_path_ops`` on the
array views of ``tags`` and ``nums`` (the date view casts with the session's DateStyle: not immutable, not
indexable).

"""

from __future__ import annotations

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.pgvector.language import connective, typed_condition
from filterproof.fuzz.generate import BY_NAME

KINDS = {name: field.kind for name, field in BY_NAME.items()}
"""Each FIELD's kind: its typed column's (``language.COLUMNS``)."""
QUERY = "[1,0]"
"""The search vector; document i has ``[1, 0.01 (i + 1)]``: a distinct cosine distance each."""


def render_typed(expr: Expr) -> str:
    """The native filter over the typed columns: Python source of the ``(where, params)`` tuple."""
    return repr(connective(expr, lambda c: typed_condition(c, KINDS)))
