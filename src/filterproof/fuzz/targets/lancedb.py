"""LanceDB's filter language: a DataFusion SQL ``WHERE`` string over typed Arrow columns, in an embedded database.

The store is a local database in a temporary directory with two tables of one schema:
``plain`` and ``indexed`` (the same rows with a scalar index on every field: BTREE on
``s``, ``n``, ``x``, ``d``; BITMAP on the low-cardinality ``t`` and ``b``; LABEL_LIST on
``tags`` and ``nums``). Each field is a nullable column:

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

Loading (``load``, for every world and every shrink attempt) drops and creates the
``plain`` table (about 5-15 ms for 8 rows), so its state is a function of the documents
alone, as in a reproducer; the ``indexed`` copy is built the same way on the first
indexed ask only (8 index builds, about 50-130 ms on 2 shared cores).

Rendering (``render``, spelling 0): ``col = v``, ``col <> v``, ``col IN (...)``,
``col NOT IN (...)``, ``col > v``...; ``array_has(col, v)`` and
``array_has_any(col, [...])`` (the functions LanceDB's documentation names for a
LABEL_LIST column); ``col IS NULL``, ``col IS NOT NULL``; ``is_empty`` on a list
``(col IS NULL OR array_length(col) = 0)``, on a scalar ``col IS NULL``. An empty IN
list is ``FALSE`` (``NOT IN ()``: ``TRUE``: DataFusion's parser refuses ``IN ()``), an
empty AND ``TRUE``, an empty OR ``FALSE``; NOT is ``NOT (...)``.
Literals: a string is single-quoted with ``'`` doubled, the only escape DataFusion's
string literals have (a backslash, NUL or newline is an ordinary character there); a
lone surrogate is refused (not UTF-8). Integers are decimal, except -2^63, which is
``(-9223372036854775807 - 1)``: DataFusion reads ``-9223372036854775808`` as the
negation of 2^63, a float, which LanceDB refuses against an int64 column. Floats are
``repr`` (``1e+300``, ``-0.0``); dates ``DATE 'YYYY-MM-DD'``; booleans ``TRUE``/``FALSE``.

What is ``Unsupported``: a value of another type than the column's (LanceDB refuses to
coerce a literal it cannot convert losslessly, ``n > 1.5`` or ``s = 1``: a type error,
not a filter), ``eq``/``in``/ranges on a list column (SQL compares the whole array, which
the neutral language leaves undefined) and ``contains`` on a scalar column (a type error).

Spelling 1 writes what SQL defines as the same filter, which the ``spelling`` oracle
compares with spelling 0: the literal on the left (``v < col``), ``NOT (col = v)`` for
``<>``, ``IN``/``NOT IN`` as a chain of ``=``/``<>`` (SQL's definition),
``array_has_any(col, [v])`` for ``array_has(col, v)``, ``array_has`` joined by OR for
``array_has_any``, ``NOT (col IS NOT NULL)`` / ``NOT (col IS NULL)``, and ``cardinality``
for ``array_length``.

Read paths (``vias``): ``search`` (a vector search with prefilter, limit = the row
count), ``scan`` (``search()`` without a vector: a filtered scan), ``count``
(``count_rows(filter)``), ``postfilter`` (a vector search filtered after the nearest
rows are found: with the limit at the row count and no vector index the search is flat,
so every row is a candidate and the set must be the same), ``lance`` (pylance's scanner
on the same dataset, ``to_lance().to_table(filter=...)``; only where pylance is installed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime
from importlib.util import find_spec
from typing import Any, ClassVar

from filterproof.fuzz.generate import BY_NAME, FIELDS, Allows
from filterproof.fuzz.lang import And, Cond, Expr, Not, Or
from filterproof.fuzz.semantics import kind as kind_of
from filterproof.fuzz.target import Docs, Script, Target, Unsupported

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
ARROW_TYPES = {"text": "string", "int": "int64", "float": "float64", "date": "date32", "bool": "bool",
               "text_list": "list<string>", "int_list": "list<int64>"}
INDEXES = {"s": "BTREE", "t": "BITMAP", "n": "BTREE", "x": "BTREE", "d": "BTREE", "b": "BITMAP",
           "tags": "LABEL_LIST", "nums": "LABEL_LIST"}
"""The scalar index on each field in the ``indexed`` table."""
CONFIGS = {"BTREE": "BTree", "BITMAP": "Bitmap", "LABEL_LIST": "LabelList"}
"""Each index's ``lancedb.index`` config: ``create_index(key, config=...)`` since lancedb 0.25 (before it, and
deprecated since, ``create_scalar_index(key, index_type=...)``)."""
ELEMENT = {"text_list": "text", "int_list": "int"}
QUERY = [1.0, 0.0]
PYLANCE = find_spec("lance") is not None
"""pylance is installed: ``to_lance()`` works, and its scanner is one more read path."""

TYPE_ERROR = "lancedb: a literal of another type than the column's is a type error (no lossless coercion)"
LIST_COMPARED = "lancedb: a comparison on a list column compares the whole array (undefined in the neutral language)"
SCALAR_CONTAINS = "lancedb: array_has on a scalar column is a type error"


# -- literals -------------------------------------------------------------------------


def text_literal(value: str) -> str:
    """A single-quoted SQL string holding ``value`` exactly: ``'`` doubled, every other character as it is."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise Unsupported("lancedb: a lone surrogate is not UTF-8 (no client can send it)")
    return "'" + value.replace("'", "''") + "'"


def int_literal(value: int) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    if not INT64_MIN <= value <= INT64_MAX:
        raise Unsupported("lancedb: an integer beyond int64")
    return f"({INT64_MIN + 1} - 1)" if value == INT64_MIN else str(value)


def float_literal(value: float) -> str:
    if not isinstance(value, float):
        raise TypeError(f"expected a float, got {value!r}")
    if not math.isfinite(value):
        raise Unsupported("lancedb: no literal for an infinite or NaN float")
    return repr(value)


def date_literal(value: date) -> str:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise TypeError(f"expected a date, got {value!r}")
    return f"DATE '{value.isoformat()}'"


def as_date(value: Any) -> date | None:
    """A date, or an ISO date string as the documents hold them; None for anything else."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def literal(value: Any, kind: str, ranged: bool = False) -> str:
    """``value`` as a literal of a column of ``kind`` (text, int, float, date, bool); Unsupported on a mismatch."""
    have = kind_of(value)
    if kind == "text" and have == "text":
        return text_literal(value)
    if kind == "int" and have == "int":
        return int_literal(value)
    if kind == "float" and have in ("int", "float"):
        return int_literal(value) if have == "int" else float_literal(value)
    if kind == "date" and (isinstance(value, date) or not ranged) and as_date(value) is not None:
        return date_literal(as_date(value))  # type: ignore[arg-type]
    if kind == "bool" and have == "bool":
        return "TRUE" if value else "FALSE"
    if kind not in ARROW_TYPES:
        raise TypeError(f"unknown column kind {kind!r}")
    raise Unsupported(TYPE_ERROR)


def array_literal(values: Sequence[Any], kind: str) -> str:
    """A DataFusion array literal ``[a, b]`` of elements of ``kind``."""
    return "[" + ", ".join(literal(v, kind) for v in values) + "]"


# -- conditions -------------------------------------------------------------------------

COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
FLIPPED = {"eq": "=", "ne": "<>", "gt": "<", "gte": "<=", "lt": ">", "lte": ">="}
"""The operator with the literal on the left: ``v < col`` is ``col > v``."""


def comparison(op: str, key: str, value: Any, spelling: int) -> str:
    """eq, ne and the ranges on a scalar column."""
    kind = BY_NAME[key].kind
    if kind in ELEMENT:
        raise Unsupported(LIST_COMPARED)
    if op not in COMPARE:
        raise TypeError(f"not a comparison: {op!r}")
    shown = literal(value, kind, ranged=op not in ("eq", "ne"))
    if spelling == 1:
        return f"NOT ({key} = {shown})" if op == "ne" else f"{shown} {FLIPPED[op]} {key}"
    return f"{key} {COMPARE[op]} {shown}"


def membership(op: str, key: str, values: tuple[Any, ...], spelling: int) -> str:
    """in, nin on a scalar column: ``IN``/``NOT IN``, or (spelling 1) a chain of ``=``/``<>``."""
    kind = BY_NAME[key].kind
    if kind in ELEMENT:
        raise Unsupported(LIST_COMPARED)
    if op not in ("in", "nin"):
        raise TypeError(f"not a membership: {op!r}")
    shown = [literal(v, kind) for v in values]
    if not shown:
        return "FALSE" if op == "in" else "TRUE"
    if spelling == 1:
        sign, join = ("=", " OR ") if op == "in" else ("<>", " AND ")
        return "(" + join.join(f"{key} {sign} {v}" for v in shown) + ")"
    return f"{key} {'IN' if op == 'in' else 'NOT IN'} ({', '.join(shown)})"


def holds(op: str, key: str, value: Any, spelling: int) -> str:
    """contains (one value) and contains_any (a tuple) on a list column."""
    kind = BY_NAME[key].kind
    if kind not in ELEMENT:
        raise Unsupported(SCALAR_CONTAINS)
    element = ELEMENT[kind]
    if op == "contains":
        if spelling == 1:
            return f"array_has_any({key}, {array_literal([value], element)})"
        return f"array_has({key}, {literal(value, element)})"
    if op != "contains_any":
        raise TypeError(f"not a list condition: {op!r}")
    if spelling == 1:
        parts = [f"array_has({key}, {literal(v, element)})" for v in value]
        return "(" + " OR ".join(parts) + ")" if parts else "FALSE"
    return f"array_has_any({key}, {array_literal(value, element)})"


def unary(op: str, key: str, spelling: int) -> str:
    """is_null, exists, is_empty (null, or on a list also ``[]``)."""
    kind = BY_NAME[key].kind
    null = f"NOT ({key} IS NOT NULL)" if spelling == 1 else f"{key} IS NULL"
    if op == "is_null":
        return null
    if op == "exists":
        return f"NOT ({key} IS NULL)" if spelling == 1 else f"{key} IS NOT NULL"
    if op == "is_empty":
        if kind not in ELEMENT:
            return null
        length = "cardinality" if spelling == 1 else "array_length"
        return f"({key} IS NULL OR {length}({key}) = 0)"
    raise TypeError(f"not a unary condition: {op!r}")


def condition(c: Cond, spelling: int) -> str:
    if c.key not in BY_NAME:
        raise TypeError(f"unknown field {c.key!r}")
    if c.op in COMPARE:
        return comparison(c.op, c.key, c.value, spelling)
    if c.op in ("in", "nin"):
        return membership(c.op, c.key, c.value, spelling)
    if c.op in ("contains", "contains_any"):
        return holds(c.op, c.key, c.value, spelling)
    return unary(c.op, c.key, spelling)


def sql(expr: Expr, spelling: int = 0) -> str:
    """The filter as a DataFusion SQL expression."""
    match expr:
        case Cond():
            return condition(expr, spelling)
        case And(parts):
            return "(" + " AND ".join(sql(p, spelling) for p in parts) + ")" if parts else "TRUE"
        case Or(parts):
            return "(" + " OR ".join(sql(p, spelling) for p in parts) + ")" if parts else "FALSE"
        case Not(part):
            return f"NOT ({sql(part, spelling)})"
    raise TypeError(f"unknown expression {expr!r}")


# -- the store --------------------------------------------------------------------------


def stored(key: str, value: Any) -> Any:
    """A document's value as its column holds it (a date string parsed); a missing key is None."""
    if value is None or BY_NAME[key].kind != "date":
        return value
    day = as_date(value)
    if day is None or not isinstance(value, str):
        raise TypeError(f"d holds ISO date strings, got {value!r}")
    return day


class LanceDBTarget(Target):
    """LanceDB embedded (``lancedb.connect(<directory>)``), filters as SQL strings, prefiltered vector search."""

    name = "lancedb"
    packages = ("lancedb", "pylance", "pyarrow")
    allows = Allows(absent=False, mixed=False, nulls=True, lists=True, empty_lists=True, null_in_lists=True, nul=True)
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "scan", "count", "postfilter", *(("lance",) if PYLANCE else ()))
    indexable = True
    spellings = 2
    equivalent = (1,)

    def __init__(self) -> None:
        self.db: Any = None
        self.tables: dict[str, Any] = {}
        self.datasets: dict[str, Any] = {}
        self.rows = 0
        self._data: Any = None
        self._dir: Any = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(sql(expr, spelling))

    def namespace(self) -> dict[str, Any]:
        import lancedb  # noqa: F401  # the engine must import: ``installed`` relies on the ImportError

        return {}

    def schema(self) -> Any:
        import pyarrow as pa

        types = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "date": pa.date32(),
                 "bool": pa.bool_(), "text_list": pa.list_(pa.string()), "int_list": pa.list_(pa.int64())}
        return pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), 2)),
                          *(pa.field(f.name, types[f.kind]) for f in FIELDS)])

    def arrow(self, docs: Docs) -> Any:
        import pyarrow as pa

        columns: dict[str, list[Any]] = {"id": list(docs), "vector": [[1.0, 0.01 * (i + 1)] for i in range(len(docs))]}
        for f in FIELDS:
            columns[f.name] = [stored(f.name, doc.get(f.name)) for doc in docs.values()]
        return pa.table(columns, schema=self.schema())

    def load(self, docs: Docs) -> None:
        import lancedb

        if self.db is None:
            import tempfile

            self._dir = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-lancedb-")
            self.db = lancedb.connect(self._dir.name)
        self.rows, self._data, self.datasets = len(docs), self.arrow(docs), {}
        self.tables["plain"] = self._create("plain")
        self.tables.pop("indexed", None)  # built on the first indexed ask: most shrink attempts never need it

    def _create(self, name: str) -> Any:
        """A fresh table (dropped and created: its state is a function of the documents alone, as in a script)."""
        import inspect

        import lancedb.index

        self.db.drop_table(name, ignore_missing=True)
        table = self.db.create_table(name, self._data)
        if name == "indexed":
            configs = "config" in inspect.signature(table.create_index).parameters
            for key, index in INDEXES.items():
                if configs:
                    table.create_index(key, config=getattr(lancedb.index, CONFIGS[index])())
                else:
                    table.create_scalar_index(key, index_type=index)
        return table

    def _table(self, indexed: bool) -> Any:
        name = "indexed" if indexed else "plain"
        if name not in self.tables:
            self.tables[name] = self._create(name)
        return self.tables[name]

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        where, table, n = self.native(source), self._table(indexed), max(self.rows, 1)
        if via == "count":
            return {f"#{i}" for i in range(table.count_rows(where))}
        if via == "search":
            found = table.search(QUERY).where(where, prefilter=True).limit(n).select(["id", "_distance"])
        elif via == "postfilter":
            found = table.search(QUERY).where(where, prefilter=False).limit(n).select(["id", "_distance"])
        elif via == "scan":
            found = table.search().where(where).limit(n).select(["id"])
        elif via == "lance":
            key = "indexed" if indexed else "plain"
            if key not in self.datasets:
                self.datasets[key] = table.to_lance()
            return set(self.datasets[key].to_table(columns=["id"], filter=where)["id"].to_pylist())
        else:
            raise ValueError(f"unknown via {via!r}")
        return set(found.to_arrow()["id"].to_pylist())

    def script(self, docs: Docs) -> Script:
        imports = ("import inspect", "import tempfile", "from datetime import date", "import lancedb",
                   "import lancedb.index", "import pyarrow as pa")
        return Script("\n".join(imports), _SETUP, "ask_lancedb")

    def close(self) -> None:
        self.tables, self.datasets, self.db = {}, {}, None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None


_FIELDS = [(f.name, f.kind) for f in FIELDS]
_SETUP = f"""
ARROW = {{"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "date": pa.date32(), "bool": pa.bool_(),
          "text_list": pa.list_(pa.string()), "int_list": pa.list_(pa.int64())}}
FIELDS = {_FIELDS!r}
INDEXES = {INDEXES!r}
CONFIGS = {CONFIGS!r}
SCHEMA = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), 2)),
                    *(pa.field(key, ARROW[kind]) for key, kind in FIELDS)])
columns = {{"id": list(DOCS), "vector": [[1.0, 0.01 * (i + 1)] for i in range(len(DOCS))]}}
for key, kind in FIELDS:  # a missing key is a null; d holds ISO date strings, stored as date32
    values = [doc.get(key) for doc in DOCS.values()]
    columns[key] = [date.fromisoformat(v) if kind == "date" and v is not None else v for v in values]
db = lancedb.connect(tempfile.mkdtemp(prefix="lancedb-"))
tables = {{name: db.create_table(name, pa.table(columns, schema=SCHEMA)) for name in ("plain", "indexed")}}
configs = "config" in inspect.signature(tables["indexed"].create_index).parameters  # lancedb 0.25 on
for key, index in INDEXES.items():
    if configs:
        tables["indexed"].create_index(key, config=getattr(lancedb.index, CONFIGS[index])())
    else:
        tables["indexed"].create_scalar_index(key, index_type=index)


def ask_lancedb(native, via, indexed):
    table, n = tables["indexed" if indexed else "plain"], max(len(DOCS), 1)
    if via == "count":
        return {{f"#{{i}}" for i in range(table.count_rows(native))}}
    if via == "lance":
        return set(table.to_lance().to_table(columns=["id"], filter=native)["id"].to_pylist())
    if via == "scan":
        query = table.search().where(native).limit(n).select(["id"])
    else:  # search: prefilter; postfilter: the nearest n rows (all of them), then the filter
        query = table.search({QUERY!r}).where(native, prefilter=via == "search").limit(n).select(["id", "_distance"])
    return set(query.to_arrow()["id"].to_pylist())
"""
