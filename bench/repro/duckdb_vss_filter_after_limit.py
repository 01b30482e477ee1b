"""duckdb-vss: a WHERE beside an HNSW-served ORDER BY ... LIMIT filters the index's top LIMIT rows, not the table.

Standalone (duckdb and the duckdb-extension-vss wheel alone). Seen with duckdb 1.5.5 and duckdb-extension-vss
1.5.5: the plan is FILTER over HNSW_INDEX_SCAN, so one tenant's query over a table where other tenants' rows are
nearer returns nothing, though the tenant has rows (duckdb-vss issue #35, open; PR #89, merged upstream in
2026-09, adds `hnsw_prefilter` and is not in this wheel). Without the index the same query answers.

Exit status 1: the bug reproduces (fewer rows than LIMIT though enough pass the filter); 0: all LIMIT rows.
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
# 1,000 rows of tenant 'b' near the query, 10 of tenant 'a' further away.
conn.execute("INSERT INTO docs SELECT i, 'b', [1.0, i / 1000.0]::FLOAT[2] FROM range(1000) t(i)")
conn.execute("INSERT INTO docs SELECT 1000 + i, 'a', [0.0, 1.0 + i]::FLOAT[2] FROM range(10) t(i)")
query = ("SELECT id FROM docs WHERE tenant = 'a' ORDER BY array_distance(v, [1.0, 0.0]::FLOAT[2]) LIMIT 5")
before = conn.execute(query).fetchall()
conn.execute("CREATE INDEX docs_v ON docs USING HNSW (v)")
after = conn.execute(query).fetchall()
plan = conn.execute("EXPLAIN " + query).fetchall()[0][1]
print(f"duckdb {duckdb.__version__}: without the index {len(before)} rows, with it {len(after)}; "
      f"plan uses HNSW_INDEX_SCAN: {'HNSW_INDEX_SCAN' in plan}")
if len(after) < 5:
    print("VIOLATED: tenant 'a' has 10 rows, LIMIT 5 returned", len(after))
    sys.exit(1)
sys.exit(0)
