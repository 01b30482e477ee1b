"""The policy in the filter languages of LangChain's Chroma and Qdrant integrations (pure).

Both integrations take the store's own filter through ``filter=`` (documented:
``langchain_chroma.Chroma`` passes a Chroma ``where`` dict, ``QdrantVectorStore`` a
``qdrant_client.models.Filter``), and both store documents the way the engine
adapters do, so the compilers are the engine adapters' compilers:

* ``langchain-chroma``: metadata is ``adapters.chroma.where.stored_metadata`` at the top
  level of Chroma's metadata; the filter is ``compile_partitions`` unchanged.
* ``langchain-qdrant``: metadata is ``adapters.qdrant.payload.stored_payload``, which
  LangChain nests under the payload key ``metadata``; the filter is the policy of
  ``adapters.qdrant.compiler``, written by ``adapters.qdrant.language`` with every key prefixed ``metadata.``.

Why not LangChain's structured-query translators (``langchain_community.query_constructors``):
they cannot express this policy. ``ChromaTranslator`` allows eq/ne/gt/gte/lt/lte only
(no ``$in`` for the active revisions, no ``$contains`` for groups); ``QdrantTranslator``
renders every range as a numeric ``Range`` (Qdrant's datetime range is unreachable)
and has no ``IsEmpty`` or ``MatchAny``. ``filterproof matrix`` measures each operator
through them (``language=translator``) beside the native filters.
"""

from __future__ import annotations

from filterproof.adapters.chroma.language import Where
from filterproof.adapters.chroma.where import compile_partitions
from filterproof.adapters.qdrant.compiler import PolicyCompiler
from filterproof.adapters.qdrant.language import MODELS
from filterproof.policy import PolicyFilter

METADATA_KEY = "metadata"
"""``QdrantVectorStore``'s default ``metadata_payload_key``: the document's metadata sits under it."""


def chroma_filters(where: PolicyFilter) -> list[Where]:
    """The ``filter=`` dicts for langchain-chroma: usually one (more beyond 20k active keys, disjoint)."""
    return compile_partitions(where)


def qdrant_compiler(prefix: str = METADATA_KEY) -> PolicyCompiler:
    """Compiles a ``PolicyFilter`` to the ``filter=`` of ``QdrantVectorStore`` (cached per map, like the engine's)."""
    return PolicyCompiler(MODELS, prefix=prefix + ".")  # every key under the metadata (LangChain nests it)
