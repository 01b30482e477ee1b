"""DuckDB: the text of a query ends at its first NUL, so a literal holding one is a parser error.

Standalone (duckdb alone). Seen with duckdb 1.5.5: `SELECT 'a<NUL>b' = ?` fails with "unterminated quoted string"
(the parser reads the text as a C string), while a bound parameter carries the NUL and compares it exactly. A
filter that writes a value into the query text (a framework's filter translation, or an adapter quoting values)
cannot ask about a value holding NUL; the `duckdb` backend binds every value and is not affected.

Exit status 1: the literal is refused; 0: the literal compares as the bound value does.
"""
import sys

import duckdb

conn = duckdb.connect()
value = "a\x00b"
assert conn.execute("SELECT ? = ?", [value, value]).fetchone() == (True,)
try:
    conn.execute(f"SELECT '{value}' = ?", [value]).fetchall()
except duckdb.ParserException as error:
    print(f"duckdb {duckdb.__version__}: a literal holding NUL: {str(error).splitlines()[0]}")
    print("VIOLATED: the query text is cut at the NUL")
    sys.exit(1)
sys.exit(0)
