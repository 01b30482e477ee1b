"""A seeded defect on the real LangChain: one retriever kept by the bridge and given each request's filter.

``SharedRetriever`` is the ``langchain-chroma`` bridge on ``path=retriever`` as an application often writes it:
``store.as_retriever()`` once, then ``retriever.search_kwargs = {"k": k, "filter": ...}`` before each
``invoke``. From one thread every answer is right; from the threads that serve requests, a call that overlaps
another is invoked with the other's filter: another tenant's documents. ``SharedClientChecks`` must fail it
(``tests/adapters/test_bridges.py``); the built-in bridges build a retriever per call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from filterproof.adapters.bridges.langchain_stores import LangChainChromaBridge
from filterproof.adapters.bridges.options import Path


class SharedRetriever(LangChainChromaBridge):
    name = "defect-shared-retriever"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__({**(options or {}), "path": "retriever"})
        self._retriever: Any = None

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        if self._retriever is None:
            self._retriever = self.store.as_retriever()
        self._retriever.search_kwargs = {"k": k, **({} if native is None else {self.filter_keyword: native})}
        with self.keys.query(vector) as query:
            docs = self._retriever.invoke(query)
        return [(self._doc_id(d), None) for d in docs]
