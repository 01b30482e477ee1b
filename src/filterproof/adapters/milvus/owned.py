"""What filterproof owns in Milvus, and how it says so: the collection property ``filterproof``.

Every collection the ``milvus`` backend (and the fuzzer's ``milvus-server`` target) creates
carries the marker of ``adapters.ownership`` as a collection property, which Milvus Lite and
a server both keep (``describe_collection(...)["properties"]``). Only such a collection is
ever dropped; ``owned`` lists them in a Lite file or on a server for ``filterproof clean``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filterproof.adapters.milvus.options import TOKEN_ENV, URI_ENV, MilvusOptions
from filterproof.adapters.ownership import KEY, Marker, Owned
from filterproof.errors import UsageError


def marked(temporary: bool) -> dict[str, str]:
    """The properties a new collection is created with."""
    return {KEY: Marker.new(temporary).text()}


def collection_mark(client: Any, name: str) -> tuple[bool, object]:
    """Whether the collection exists, and the marker its properties hold."""
    if not client.has_collection(name):
        return False, None
    return True, (client.describe_collection(name).get("properties") or {}).get(KEY)


@contextlib.contextmanager
def owned(options: MilvusOptions) -> Iterator[list[Owned]]:
    """Every marked collection of the Lite file or server ``uri`` / ``$MILVUS_URI`` names, each droppable."""
    from pymilvus import MilvusClient

    from filterproof.adapters.milvus.lite import is_lite, release_lite

    uri = options.uri or os.environ.get(URI_ENV)
    if not uri:
        raise UsageError(f"milvus: nothing to clean in a temporary directory: give uri=... or set {URI_ENV}")
    if is_lite(uri) and not Path(uri).is_file():
        raise UsageError(f"milvus: {uri} is not a Milvus Lite file")
    client = MilvusClient(uri=uri, token=options.token or os.environ.get(TOKEN_ENV) or "")
    try:
        found = []
        for name in client.list_collections():
            marker = Marker.parse(collection_mark(client, name)[1])
            if marker is not None:
                found.append(Owned(f"collection {name!r} in {uri}", marker,
                                   lambda name=name: client.drop_collection(name)))
        yield found
    finally:
        client.close()
        if is_lite(uri):
            release_lite(os.path.abspath(uri))
