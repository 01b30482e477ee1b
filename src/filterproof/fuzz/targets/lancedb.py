"""LanceDB's filter language (``lancedb_sql``'s ``WHERE`` strings) over an embedded database.

The store is a local database in a temporary directory with two tables of one schema:
``plain`` and ``indexed`` (the same rows with a scalar index on every field: BTREE on
``s``, ``n``, ``x``, ``d``; BITMAP on the low-cardinality ``t`` and ``b``; LABEL_LIST on
``tags`` and ``nums``). Each field is a nullable column:

Loading (``load``, for every world and every shrink attempt) drops and creates the
``plain`` table (about 5-15 ms for 8 rows), so its state is a function of the documents
alone, as in a reproducer; the ``indexed`` copy is built the same way on the first
indexed ask only (8 index builds, about 50-130 ms on 2 shared cores).

Read paths (``vias``): ``search`` (a vector search with prefilter, limit = the row
count), ``scan`` (``search()`` without a vector: a filtered scan), ``count``
(``count_rows(filter)``), ``postfilter`` (a vector search filtered after the nearest
rows are found: with the limit at the row count and no vector index the search is flat,
so every row is a candidate and the set must be the same), ``lance`` (pylance's scanner
on the same dataset, ``to_lance().to_table(filter=...)``; only where pylance is installed).

``optimizable``: two more tables, written alike on the first ask that needs them: the
first half of the rows, the scalar indexes built over them, the rest appended (rows no
index covers yet, which a filter must scan beside the index: ``staged``, before); and
the same after ``table.optimize()`` (fragments compacted, the indexes extended to every
row: ``optimized``, after).
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.lancedb.language import as_date
from filterproof.fuzz.generate import BY_NAME, FIELDS, Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.lancedb_sql import sql

INDEXES = {"s": "BTREE", "t": "BITMAP", "n": "BTREE", "x": "BTREE", "d": "BTREE", "b": "BITMAP",
           "tags": "LABEL_LIST", "nums": "LABEL_LIST"}
"""The scalar index on each field in the ``indexed`` table."""
CONFIGS = {"BTREE": "BTree", "BITMAP": "Bitmap", "LABEL_LIST": "LabelList"}
"""Each index's ``lancedb.index`` config: ``create_index(key, config=...)`` since lancedb 0.25 (before it, and
deprecated since, ``create_scalar_index(key, index_type=...)``)."""
QUERY = [1.0, 0.0]
PYLANCE = find_spec("lance") is not None
"""pylance is installed: ``to_lance()`` works, and its scanner is one more read path."""




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

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "lancedb"
    packages = ("lancedb", "pylance", "pyarrow")
    allows = Allows(absent=False, mixed=False, nulls=True, lists=True, empty_lists=True, null_in_lists=True, nul=True)
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "scan", "count", "postfilter", *(("lance",) if PYLANCE else ()))
    indexable = True
    optimizable = True
    says_unknown = True  # (P) IS NULL: the partition oracle is SQLancer's three-way one
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

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        """``(P) IS NULL``: the rows where the condition is NULL (SQLancer's third partition)."""
        return repr(f"({sql(expr, spelling)}) IS NULL")

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
        self.tables = {"plain": self._create("plain")}  # the others on the first ask: most shrink attempts need none

    def _create(self, name: str) -> Any:
        """A fresh table (dropped and created: its state is a function of the documents alone, as in a script):
        ``plain``; ``indexed``, every row under the scalar indexes; ``staged``, half the rows under them and the
        rest appended after; ``optimized``, the same after ``optimize()``."""
        self.db.drop_table(name, ignore_missing=True)
        if name in ("plain", "indexed"):
            table = self.db.create_table(name, self._data)
            if name == "indexed":
                build_indexes(table)
            return table
        half = max(1, self.rows // 2)
        table = self.db.create_table(name, self._data.slice(0, half))
        build_indexes(table)
        if self.rows > half:
            table.add(self._data.slice(half))
        if name == "optimized":
            table.optimize()
        return table

    def _table(self, indexed: bool, optimized: bool | None = None) -> Any:
        name = ("optimized" if optimized else "staged") if optimized is not None else \
            "indexed" if indexed else "plain"
        if name not in self.tables:
            self.tables[name] = self._create(name)
        return self.tables[name]

    def ask(self, source: str, via: str = "search", indexed: bool = False, optimized: bool | None = None
            ) -> set[str]:
        where, table, n = self.native(source), self._table(indexed, optimized), max(self.rows, 1)
        if via == "count":
            return {f"#{i}" for i in range(table.count_rows(where))}
        if via == "search":
            found = table.search(QUERY).where(where, prefilter=True).limit(n).select(["id", "_distance"])
        elif via == "postfilter":
            found = table.search(QUERY).where(where, prefilter=False).limit(n).select(["id", "_distance"])
        elif via == "scan":
            found = table.search().where(where).limit(n).select(["id"])
        elif via == "lance":
            key = table.name
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


def build_indexes(table: Any) -> None:
    """A scalar index on every field (``INDEXES``)."""
    import inspect

    import lancedb.index

    configs = "config" in inspect.signature(table.create_index).parameters
    for key, index in INDEXES.items():
        if configs:
            table.create_index(key, config=getattr(lancedb.index, CONFIGS[index])())
        else:
            table.create_scalar_index(key, index_type=index)


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
rows = pa.table(columns, schema=SCHEMA)


def build_indexes(table):
    configs = "config" in inspect.signature(table.create_index).parameters  # lancedb 0.25 on
    for key, index in INDEXES.items():
        if configs:
            table.create_index(key, config=getattr(lancedb.index, CONFIGS[index])())
        else:
            table.create_scalar_index(key, index_type=index)


tables = {{name: db.create_table(name, rows) for name in ("plain", "indexed")}}
build_indexes(tables["indexed"])
half = max(1, len(DOCS) // 2)
for name in ("staged", "optimized"):  # half the rows indexed, the rest appended; then optimize() folds them in
    tables[name] = db.create_table(name, rows.slice(0, half))
    build_indexes(tables[name])
    if len(DOCS) > half:
        tables[name].add(rows.slice(half))
tables["optimized"].optimize()


def ask_lancedb(native, via, indexed, optimized=None):
    name = ("optimized" if optimized else "staged") if optimized is not None else "indexed" if indexed else "plain"
    table, n = tables[name], max(len(DOCS), 1)
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
