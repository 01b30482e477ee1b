"""filterproof fuzz finding: index on lancedb.

Building payload indexes must not change what a filter selects.
Filter: NOT s eq 'Ácme\xa0'
Versions: lancedb 0.27.1, pylance not installed, pyarrow 26.0.1
Found by `filterproof fuzz --seed 1` (case 60), shrunk from 8 documents and 9 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import inspect
import sys
import tempfile
from datetime import date

import lancedb
import lancedb.index
import pyarrow as pa

DOCS = {'d2': {'s': None, 't': None, 'n': None, 'x': None, 'd': None, 'b': None, 'tags': None, 'nums': None}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


ARROW = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "date": pa.date32(), "bool": pa.bool_(),
          "text_list": pa.list_(pa.string()), "int_list": pa.list_(pa.int64())}
FIELDS = [('s', 'text'), ('t', 'text'), ('n', 'int'), ('x', 'float'), ('d', 'date'), ('b', 'bool'), ('tags', 'text_list'), ('nums', 'int_list')]
INDEXES = {'s': 'BTREE', 't': 'BITMAP', 'n': 'BTREE', 'x': 'BTREE', 'd': 'BTREE', 'b': 'BITMAP', 'tags': 'LABEL_LIST', 'nums': 'LABEL_LIST'}
CONFIGS = {'BTREE': 'BTree', 'BITMAP': 'Bitmap', 'LABEL_LIST': 'LabelList'}
SCHEMA = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), 2)),
                    *(pa.field(key, ARROW[kind]) for key, kind in FIELDS)])
columns = {"id": list(DOCS), "vector": [[1.0, 0.01 * (i + 1)] for i in range(len(DOCS))]}
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


tables = {name: db.create_table(name, rows) for name in ("plain", "indexed")}
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
        return {f"#{i}" for i in range(table.count_rows(native))}
    if via == "lance":
        return set(table.to_lance().to_table(columns=["id"], filter=native)["id"].to_pylist())
    if via == "scan":
        query = table.search().where(native).limit(n).select(["id"])
    else:  # search: prefilter; postfilter: the nearest n rows (all of them), then the filter
        query = table.search([1.0, 0.0]).where(native, prefilter=via == "search").limit(n).select(["id", "_distance"])
    return set(query.to_arrow()["id"].to_pylist())


answers = {
    'P': ask_lancedb("NOT (s = 'Ácme\xa0')", 'search', False),
    'P indexed': ask_lancedb("NOT (s = 'Ácme\xa0')", 'search', True),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P indexed']
print('holds' if holds else 'VIOLATED: index')
sys.exit(0 if holds else 1)
