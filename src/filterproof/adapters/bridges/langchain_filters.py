"""The policy in the filter languages of LangChain's Chroma and Qdrant integrations (pure).

Both integrations take the store's own filter through ``filter=`` (documented:
``langchain_chroma.Chroma`` passes a Chroma ``where`` dict, ``QdrantVectorStore`` a
``qdrant_client.models.Filter``), and both store documents the way the engine
adapters do, so the compilers are the engine adapters' compilers:

* ``langchain-chroma``: metadata is ``adapters.chroma.where.stored_metadata`` at the top
  level of Chroma's metadata; the filter is ``compile_partitions`` unchanged.
* ``langchain-qdrant``: metadata is ``adapters.qdrant.payload.stored_payload``, which
  LangChain nests under the payload key ``metadata``; the filter is the neutral tree of
  ``adapters.qdrant.compiler`` rendered with every key prefixed ``metadata.``.

Why not LangChain's structured-query translators (``langchain_community.query_constructors``):
they cannot express this policy. ``ChromaTranslator`` allows eq/ne/gt/gte/lt/lte only
(no ``$in`` for the active revisions, no ``$contains`` for groups); ``QdrantTranslator``
renders every range as a numeric ``Range`` (Qdrant's datetime range is unreachable)
and has no ``IsEmpty`` or ``MatchAny``. ``filterproof matrix`` measures each operator
through them (``language=translator``) beside the native filters.
"""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from filterproof.adapters.chroma.where import Where, compile_partitions
from filterproof.adapters.qdrant.client import ModelsFamily
from filterproof.adapters.qdrant.compiler import PolicyCompiler
from filterproof.policy import PolicyFilter

METADATA_KEY = "metadata"
"""``QdrantVectorStore``'s default ``metadata_payload_key``: the document's metadata sits under it."""


def chroma_filters(where: PolicyFilter) -> list[Where]:
    """The ``filter=`` dicts for langchain-chroma: usually one (more beyond 20k active keys, disjoint)."""
    return compile_partitions(where)


class PrefixedFamily(ModelsFamily):
    """qdrant_client models with every payload key under ``prefix.`` (LangChain nests metadata)."""

    def __init__(self, prefix: str = METADATA_KEY) -> None:
        self.prefix = prefix + "."

    def equals(self, key: str, value: str) -> models.Condition:
        return super().equals(self.prefix + key, value)

    def any_of(self, key: str, values: list[str]) -> models.Condition:
        return super().any_of(self.prefix + key, values)

    def date_range(self, key: str, gt: str | None, lte: str | None) -> models.Condition:
        return super().date_range(self.prefix + key, gt, lte)

    def missing(self, key: str) -> models.Condition:
        return super().missing(self.prefix + key)


def qdrant_compiler(prefix: str = METADATA_KEY) -> PolicyCompiler[Any]:
    """Compiles a ``PolicyFilter`` to the ``filter=`` of ``QdrantVectorStore`` (cached per map, like the engine's)."""
    return PolicyCompiler(PrefixedFamily(prefix))
