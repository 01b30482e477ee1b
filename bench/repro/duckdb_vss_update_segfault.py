"""duckdb-vss: an UPDATE of a list column kills the process (SIGSEGV) after a DELETE, an index build and an INSERT.

Standalone (duckdb and the duckdb-extension-vss wheel alone). Seen with duckdb 1.5.5 and duckdb-extension-vss
1.5.5: three rows, one deleted, the HNSW index created, one row inserted, then `UPDATE docs SET groups = ['h']`
on another row: a segmentation fault, no exception to catch. Without the index the same statements run. Each step
is what a store's metadata update does (an access list rewritten in place); the conformance suite's generated
sequences met it. Matches the second crash reported in duckdb-vss issue #81 (open: "a write operation on a FLOAT[N]
column with an active HNSW index kills the process with SIGSEGV"); its workaround, drop the index before any
DELETE or UPDATE and build it again after, is what the `duckdb` backend does.

The statements run in a child interpreter, so that the crash is reported rather than suffered.
Exit status 1: the child was killed by SIGSEGV; 0: it finished.
"""
import signal
import subprocess
import sys

CHILD = """
import glob, os, sys
import duckdb, duckdb_extension_vss
root = os.path.dirname(duckdb_extension_vss.__file__)
conn = duckdb.connect()
conn.execute("LOAD '" + glob.glob(os.path.join(root, "extensions", "*", "vss.duckdb_extension"))[0] + "'")
conn.execute("CREATE TABLE docs (id VARCHAR, v FLOAT[2], groups VARCHAR[])")
conn.execute("INSERT INTO docs VALUES ('a', [1, 0], ['g']), ('b', [0, 1], ['g']), ('c', [1, 1], ['g'])")
conn.execute("DELETE FROM docs WHERE id = 'c'")
if sys.argv[1] == "index":
    conn.execute("CREATE INDEX docs_v ON docs USING HNSW (v)")
conn.execute("INSERT INTO docs VALUES ('d', [1, 1], ['g'])")
conn.execute("UPDATE docs SET groups = ['h'] WHERE id = 'a'")
print(duckdb.__version__)
"""

plain = subprocess.run([sys.executable, "-c", CHILD, "none"], capture_output=True, text=True, timeout=120)
indexed = subprocess.run([sys.executable, "-c", CHILD, "index"], capture_output=True, text=True, timeout=120)
print(f"without the index: exit {plain.returncode}; with it: exit {indexed.returncode}")
if indexed.returncode == -signal.SIGSEGV:
    print(f"VIOLATED: the UPDATE killed the process (SIGSEGV), duckdb {plain.stdout.strip()}")
    sys.exit(1)
sys.exit(0)
