"""LlamaIndex's ``LanceDBVectorStore`` (llama-index-vector-stores-lancedb), in process: a probe store for the matrix.

Not yet a backend: ``LanceDBVectorStore`` cannot carry this policy through
``MetadataFilters`` (0.6.0 translates neither nested filters, ANY/CONTAINS nor
IS_EMPTY, and an OR applies to every clause of its level), so a bridge would need
the integration's ``where=`` Lance SQL over the ``metadata`` struct, compiled like
the ``lancedb`` engine backend's filter (issue 11). Until then ``filterproof matrix``
probes what its ``MetadataFilters`` really do (``matrix.targets``).

Writes are ``vector_store.add(nodes)`` into a table of a LanceDB directory of our own
(temporary, removed on close); the table's schema comes from the first batch, as in
an application. ``LanceDBVectorStore`` searches by L2 distance (it sets no metric)
and reports ``exp(-distance)``; the vectors are stored unit length, so the ranking is
the cosine ranking, and cosine = 1 - distance / 2 (squared L2 of unit vectors).
"""

from __future__ import annotations

import math
import shutil
import tempfile
import uuid
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from llama_index.core.schema import TextNode
from llama_index.vector_stores.lancedb import LanceDBVectorStore

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.core import DOC_PREFIX, unit
from filterproof.adapters.bridges.llamaindex_stores import _LlamaIndexBridge
from filterproof.adapters.bridges.options import BridgeOptions
from filterproof.policy import PolicyFilter


class LlamaIndexLanceDBBridge(_LlamaIndexBridge):
    """``LanceDBVectorStore`` on a temporary local LanceDB directory."""

    name = "llamaindex-lancedb"
    Options = BridgeOptions
    groups = "flags"
    engine_capabilities = Capabilities(native_filter=False, exact=True, persistent=False, lifecycle=True)

    def __init__(self, options: BridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._root = tempfile.mkdtemp(prefix="filterproof-lance-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._root, True)

    def _new_store(self, dim: int) -> LanceDBVectorStore:
        return LanceDBVectorStore(uri=self._root, table_name=f"t{uuid.uuid4().hex[:12]}", mode="overwrite")

    def _add(self, records: Sequence[Record]) -> None:
        self.store.add([TextNode(id_=r.id, text=DOC_PREFIX + r.id, metadata=self._metadata(r),
                                 embedding=unit(r.vector).astype(np.float32).tolist()) for r in records])

    def _natives(self, where: PolicyFilter) -> list[Any]:
        raise NotImplementedError(f"{self.name}: the policy is not expressible in its MetadataFilters (see the module)")

    def _cosine(self, similarity: float) -> float:
        return 1.0 + math.log(similarity) / 2.0 if similarity > 0 else -1.0

    def close(self) -> None:
        self._cleanup()
