"""Milvus Lite's server in this process: its URL for other clients, releasing it, a temporary directory for it.

milvus-lite 3.x serves gRPC from a thread of the process that opened the ``*.db`` file.
``MilvusClient.close()`` leaves that server running and the directory locked until the
process exits (milvus-lite#227; ``bench/repro/milvus_close_lock.py``), so whatever opens
a Lite file here releases it on close, and a temporary one is removed after.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import weakref
from pathlib import Path

from filterproof.errors import BackendUnavailable


def is_lite(uri: str) -> bool:
    return uri.endswith(".db")


def lite_url(path: str) -> str:
    """The ``http://127.0.0.1:port`` of the Milvus Lite server this process runs for ``path`` (started if not)."""
    from milvus_lite.server_manager import server_manager_instance

    url = server_manager_instance.start_and_get_uri(path)
    if url is None:
        raise BackendUnavailable(f"milvus: Milvus Lite could not open {path} (another process may hold it)")
    return str(url)


def release_lite(path: str) -> None:
    """Stop this process's Milvus Lite server for ``path``: ``MilvusClient.close()`` leaves it running, locked."""
    with contextlib.suppress(ImportError):
        from milvus_lite.server_manager import server_manager_instance

        server_manager_instance.release_server(path)


class LiteDirectory:
    """A Milvus Lite file in a temporary directory of its own: released and removed by ``remove()`` or at exit."""

    def __init__(self, prefix: str = "filterproof-milvus-") -> None:
        self.root = tempfile.mkdtemp(prefix=prefix)
        self.path = str(Path(self.root) / "milvus.db")
        self._cleanup = weakref.finalize(self, _remove, self.path, self.root)

    def remove(self) -> None:
        self._cleanup()


def _remove(path: str, root: str) -> None:
    release_lite(path)
    shutil.rmtree(root, ignore_errors=True)
