"""duckdb-vss: the shape of the WHERE decides whether the HNSW index is used at all, silently.

Standalone (duckdb and the duckdb-extension-vss wheel alone). Seen with duckdb 1.5.5 and duckdb-extension-vss
1.5.5: a simple column predicate (or `list_has_any`) beside ORDER BY distance LIMIT keeps HNSW_INDEX_SCAN (and
filters its top rows after: duckdb_vss_filter_after_limit.py); a correlated EXISTS (a groups table joined per row)
makes the plan an exact scan with no word said. The answers are then right, and the index a company built is never
exercised: an adapter written this way passes every check of its results.

Exit status 1: the plan changes with the WHERE's shape; 0: both use the index.
"""
import glob
import os
import sys

import duckdb
import duckdb_extension_vss

root = os.path.dirname(duckdb_extension_vss.__file__)
conn = duckdb.connect()
conn.execute(f"LOAD '{glob.glob(os.path.join(root, 'extensions', '*', 'vss.duckdb_extension'))[0]}'")
conn.execute("CREATE TABLE docs (id INTEGER, tenant VARCHAR, v FLOAT[2])")
conn.execute("CREATE TABLE grants (doc INTEGER, grp VARCHAR)")
conn.execute("INSERT INTO docs SELECT i, 'a', [1.0, i / 100.0]::FLOAT[2] FROM range(100) t(i)")
conn.execute("INSERT INTO grants SELECT i, 'eng' FROM range(100) t(i)")
conn.execute("CREATE INDEX docs_v ON docs USING HNSW (v)")
order = "ORDER BY array_distance(v, [1.0, 0.0]::FLOAT[2]) LIMIT 5"
shapes = {
    "column predicate": f"SELECT id FROM docs WHERE tenant = 'a' {order}",
    "correlated EXISTS": ("SELECT id FROM docs WHERE EXISTS (SELECT 1 FROM grants g WHERE g.doc = docs.id "
                          f"AND g.grp = 'eng') {order}"),
}
uses = {name: "HNSW_INDEX_SCAN" in conn.execute("EXPLAIN " + q).fetchall()[0][1] for name, q in shapes.items()}
print(f"duckdb {duckdb.__version__}: HNSW_INDEX_SCAN in the plan: {uses}")
if uses["column predicate"] and not uses["correlated EXISTS"]:
    print("VIOLATED: a correlated EXISTS falls back to an exact scan")
    sys.exit(1)
sys.exit(0)
