"""A fresh interpreter per documentation page, in which the page's ```python blocks run in order.

``tests/docs/test_docs.py`` starts one per page (``multiprocessing``, spawn) and sends it each
block; the blocks share one module namespace, as they would in a reader's session, and
nothing they do (a chromadb client with its own settings, a temporary database, an
import) reaches the test process or another page. Imports nothing but the standard library.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
from multiprocessing.connection import Connection


def serve(connection: Connection, root: str) -> None:
    """Run each ``(path, line, source)`` received; answer None, or the traceback of what went wrong."""
    os.chdir(root)
    module = types.ModuleType("__docs__")
    sys.modules["__docs__"] = module
    while (message := connection.recv()) is not None:
        path, line, source = message
        try:
            exec(compile("\n" * line + source, path, "exec"), module.__dict__)  # the line numbers of the page
        except BaseException:  # a SystemExit or KeyboardInterrupt in an example is its failure too
            connection.send(traceback.format_exc())
        else:
            connection.send(None)
    connection.close()
