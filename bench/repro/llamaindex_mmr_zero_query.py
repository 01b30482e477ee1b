"""llama-index-core: maximal marginal relevance asked with the zero vector raises KeyError.

Standalone (llama-index-core alone). Seen with llama-index-core 0.14.25. ``get_top_k_mmr_embeddings`` scores each
candidate by its cosine with the query; with the zero vector as the query every cosine is 0/0 (NaN), no candidate is
ever chosen as the best, and the loop deletes from its candidate dict an index it never chose: ``KeyError``. A
retriever with ``vector_store_query_mode="mmr"`` (LlamaIndex's Chroma store among them) raises where the plain
query answers (met by the conformance suite's degenerate vectors: ``VectorChecks``, path=mmr).

Exit status 1: the bug reproduces (KeyError); 0: MMR answers.
"""
import sys

from llama_index.core.indices.query.embedding_utils import get_top_k_mmr_embeddings

try:
    scores, ids = get_top_k_mmr_embeddings([0.0, 0.0, 0.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                                           embedding_ids=["a", "b"], similarity_top_k=2)
except KeyError as raised:
    print(f"VIOLATED: raised KeyError({raised})")
    sys.exit(1)
print(f"holds: {ids} {scores}")
sys.exit(0)
