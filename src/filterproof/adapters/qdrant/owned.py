"""What filterproof owns in a Qdrant store, and how it says so.

A collection (``qdrant-local``, ``qdrant-server``) carries the marker of
``adapters.ownership`` in its collection metadata (key ``filterproof``; Qdrant 1.16 and
later keep it: an older server drops it, and a collection named with ``collection=`` is
then refused on the next run, ``replace=true`` taking it over). ``qdrant-edge``'s shard
directory, ``PATH/edge-shard``, holds a file ``filterproof.json`` with the marker.
Only marked objects are dropped; ``owned`` lists them for ``filterproof clean``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filterproof.adapters.ownership import KEY, Marker, Owned
from filterproof.adapters.paths import PathLock, existing_directory_lock
from filterproof.adapters.qdrant.options import QdrantEdgeOptions, QdrantLocalOptions, QdrantServerOptions
from filterproof.errors import UsageError

SHARD = "edge-shard"
MARK_FILE = "filterproof.json"


def marked(temporary: bool) -> dict[str, str]:
    """The collection metadata a new collection is created with."""
    return {KEY: Marker.new(temporary).text()}


def collection_mark(client: Any, name: str) -> tuple[bool, object]:
    """Whether the collection exists, and the marker text its metadata holds."""
    if not client.collection_exists(name):
        return False, None
    return True, (client.get_collection(name).config.metadata or {}).get(KEY)


def shard_mark(shard: Path) -> tuple[bool, object]:
    """Whether an edge shard directory exists, and the marker file's text."""
    if not shard.exists() and not shard.is_symlink():
        return False, None
    try:
        return True, (shard / MARK_FILE).read_text(encoding="utf-8")
    except OSError:
        return True, None


def mark_shard(shard: Path) -> None:
    (shard / MARK_FILE).write_text(Marker.new(temporary=False).text(), encoding="utf-8")


@contextlib.contextmanager
def owned(options: QdrantEdgeOptions | QdrantLocalOptions | QdrantServerOptions) -> Iterator[list[Owned]]:
    """Every marked collection of the server or local directory, or the marked edge shard, each droppable."""
    if isinstance(options, QdrantEdgeOptions):
        lock = existing_directory_lock(options.path, "qdrant-edge")
        try:
            shard = Path(str(options.path)) / SHARD
            marker = Marker.parse(shard_mark(shard)[1])
            yield [] if marker is None else [Owned(f"shard {shard}", marker, lambda: shutil.rmtree(shard))]
        finally:
            lock.release()
        return
    with _client(options) as (client, where):
        found = []
        for description in client.get_collections().collections:
            marker = Marker.parse(collection_mark(client, description.name)[1])
            if marker is not None:
                found.append(Owned(f"collection {description.name!r} in {where}", marker,
                                   lambda name=description.name: client.delete_collection(name)))
        yield found


@contextlib.contextmanager
def _client(options: QdrantLocalOptions | QdrantServerOptions) -> Iterator[tuple[Any, str]]:
    from qdrant_client import QdrantClient

    lock: PathLock | None = None
    if isinstance(options, QdrantServerOptions):
        url = options.url or os.environ.get("QDRANT_URL")
        if not url:
            raise UsageError("qdrant-server: nothing to clean without a server: give url=... or set QDRANT_URL")
        client = QdrantClient(url=url, api_key=options.api_key or os.environ.get("QDRANT_API_KEY") or None,
                              timeout=options.timeout)
        where = url
    else:
        lock = existing_directory_lock(options.path, "qdrant-local")
        client, where = QdrantClient(path=options.path), str(options.path)
    try:
        yield client, where
    finally:
        client.close()
        if lock is not None:
            lock.release()
