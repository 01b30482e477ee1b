"""What filterproof owns in a Chroma store, and how it says so: the collection's metadata key ``filterproof``.

Every collection the ``chroma`` and ``chroma-server`` backends create carries the marker
(``adapters.ownership``) in its metadata; only such a collection is ever dropped.
``owned`` lists them in a directory (``chroma:path=DIR``) or on a server
(``chroma-server:url=...`` / ``$CHROMA_URL``), for ``filterproof clean``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from filterproof.adapters.chroma.options import ChromaOptions, ChromaServerOptions
from filterproof.adapters.ownership import KEY, Marker, Owned
from filterproof.adapters.paths import existing_directory_lock
from filterproof.errors import UsageError


def marked(temporary: bool) -> dict[str, str]:
    """The metadata a new collection is created with."""
    return {KEY: Marker.new(temporary).text()}


def mark_of(collection: Any) -> object:
    """The marker text a collection carries (None: none, or no collection)."""
    return (getattr(collection, "metadata", None) or {}).get(KEY)


@contextlib.contextmanager
def owned(options: ChromaOptions | ChromaServerOptions) -> Iterator[list[Owned]]:
    """Every marked collection of the directory or server the options name, each droppable."""
    import chromadb

    from filterproof.adapters.chroma.clients import client_settings, http_client

    if isinstance(options, ChromaServerOptions):
        url = options.url or os.environ.get("CHROMA_URL")
        if not url:
            raise UsageError("chroma-server: nothing to clean without a server: give url=... or set CHROMA_URL")
        client, where = http_client(url), url
        lock = None
    else:
        lock = existing_directory_lock(options.path, "chroma")
        client, where = chromadb.PersistentClient(path=options.path, settings=client_settings()), options.path
    found = []
    for collection in client.list_collections():
        marker = Marker.parse(mark_of(collection))
        if marker is not None:
            found.append(Owned(f"collection {collection.name!r} in {where}", marker,
                               lambda name=collection.name: client.delete_collection(name)))
    try:
        yield found
    finally:
        if lock is not None:
            lock.release()
