"""duckdb-vss: DELETE then INSERT (or a second UPDATE of the vector) leaves the HNSW index missing rows.

Standalone (duckdb and the duckdb-extension-vss wheel alone). Seen with duckdb 1.5.5 and duckdb-extension-vss
1.5.5: after deleting one row and inserting it again (an upsert written as DELETE and INSERT), an unfiltered
ORDER BY distance LIMIT 100 over a 3-row table returns 1 row; two UPDATEs of the vector column do the same.
`PRAGMA hnsw_compact_index` does not repair it, DROP INDEX and CREATE INDEX does (inserting new rows and
updating other columns leave the index right). Matches duckdb-vss issue #81 (open; its reporters drop every
index before a DELETE or UPDATE and create it again after). PR #93, merged upstream in 2026-09, fixes HNSW
deletions; the wheel on the index still reproduces this.

Exit status 1: the bug reproduces (the index serves fewer rows than the table holds); 0: every row.
"""
import glob
import os
import sys

import duckdb
import duckdb_extension_vss

root = os.path.dirname(duckdb_extension_vss.__file__)
conn = duckdb.connect()
conn.execute(f"LOAD '{glob.glob(os.path.join(root, 'extensions', '*', 'vss.duckdb_extension'))[0]}'")
conn.execute("CREATE TABLE docs (id VARCHAR, v FLOAT[3])")
conn.execute("INSERT INTO docs VALUES ('a', [1, 0, 0]), ('b', [0, 1, 0]), ('c', [0, 0, 1])")
conn.execute("CREATE INDEX docs_v ON docs USING HNSW (v) WITH (metric = 'ip')")
conn.execute("DELETE FROM docs WHERE id = 'a'")
conn.execute("INSERT INTO docs VALUES ('a', [1, 0.5, 0])")
if "--compact" in sys.argv:  # the extension's own repair, which does not repair it
    conn.execute("PRAGMA hnsw_compact_index('docs_v')")
query = "SELECT id FROM docs ORDER BY array_negative_inner_product(v, [1, 1, 1]::FLOAT[3]) LIMIT 100"
rows = conn.execute(query).fetchall()
(held,) = conn.execute("SELECT count(*) FROM docs").fetchone()
print(f"duckdb {duckdb.__version__}: the table holds {held} rows; the index's LIMIT 100 returned {len(rows)}")
if len(rows) < held:
    print("VIOLATED: rows missing from the index after DELETE and INSERT")
    sys.exit(1)
sys.exit(0)
