"""The bridges: the engines reached through LangChain's and LlamaIndex's integrations (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

HERE = "filterproof.adapters.bridges"
TARGETS = "filterproof.fuzz.targets"
LANGCHAIN, LLAMAINDEX, HAYSTACK = "integrations/langchain.md", "integrations/llamaindex.md", "integrations/haystack.md"


PAGES = {"langchain": LANGCHAIN, "llamaindex": LLAMAINDEX, "haystack": HAYSTACK}


def bridge(name: str, factory: str, options: str, summary: str, order: int, *fuzz: FuzzTarget,
           scale: int | None = None) -> Store:
    framework = name.split("-")[0]
    return Store(name, f"{HERE}.{factory}", f"{HERE}.options:{options}", framework, summary,
                 f"{PAGES[framework]}#{name}", kind="bridge", order=order, fuzz=fuzz, scale=scale)


def selfquery(engine: str) -> FuzzTarget:
    """LangChain's SelfQueryRetriever: a structured query through the integration's translator."""
    return FuzzTarget(f"selfquery-{engine}", f"{TARGETS}.selfquery_stores:SelfQuery{engine.capitalize()}")


STORES = (
    bridge("langchain-chroma", "langchain_stores:LangChainChromaBridge", "ChromaBridgeOptions",
           "LangChain's Chroma integration (`langchain_chroma.Chroma`), in process", 100, selfquery("chroma")),
    bridge("langchain-qdrant", "langchain_stores:LangChainQdrantBridge", "QdrantBridgeOptions",
           "LangChain's Qdrant integration (`QdrantVectorStore`), local mode", 101, selfquery("qdrant")),
    bridge("llamaindex-chroma", "llamaindex_stores:LlamaIndexChromaBridge", "ChromaBridgeOptions",
           "LlamaIndex's `ChromaVectorStore`, in process", 102,
           FuzzTarget("llamaindex-chroma", f"{TARGETS}.llamaindex_chroma:LlamaIndexChroma")),
    bridge("llamaindex-qdrant", "llamaindex_stores:LlamaIndexQdrantBridge", "QdrantBridgeOptions",
           "LlamaIndex's `QdrantVectorStore`, local mode", 103,
           FuzzTarget("llamaindex-qdrant", f"{TARGETS}.llamaindex:LlamaIndexQdrant")),
    bridge("langchain-pgvector", "langchain_stores:LangChainPgvectorBridge", "PgBridgeOptions",
           "LangChain's `PGVector` (langchain-postgres) on `PGVECTOR_DSN` (or the `pgvector` backend's server)", 104,
           FuzzTarget("langchain-pgvector", f"{TARGETS}.langchain:LangChainPgvector"), selfquery("pgvector")),
    bridge("llamaindex-pgvector", "llamaindex_stores:LlamaIndexPgvectorBridge", "PgBridgeOptions",
           "LlamaIndex's `PGVectorStore` on `PGVECTOR_DSN` (or the `pgvector` backend's server)", 105,
           FuzzTarget("llamaindex-pgvector", f"{TARGETS}.llamaindex_pgvector:LlamaIndexPgvector")),
    bridge("langchain-milvus", "langchain_milvus:LangChainMilvusBridge", "MilvusBridgeOptions",
           "LangChain's Milvus integration (`langchain_milvus.Milvus`) over Milvus Lite in process", 106,
           selfquery("milvus")),
    bridge("llamaindex-milvus", "llamaindex_milvus:LlamaIndexMilvusBridge", "MilvusBridgeOptions",
           "LlamaIndex's `MilvusVectorStore` over Milvus Lite in process", 107,
           FuzzTarget("llamaindex-milvus", f"{TARGETS}.llamaindex_milvus:LlamaIndexMilvus")),
    # qdrant-client's local mode checks each of the N equality conditions Haystack's `in` becomes for every point
    # (qdrant-haystack has no MatchAny): the scale tier's revision clause over the tenant's keys is N x points
    # Python comparisons a query, so the tier runs on fewer documents (as qdrant-local's, whose MatchAny is one).
    bridge("haystack-qdrant", "haystack_stores:HaystackQdrantBridge", "HaystackBridgeOptions",
           "Haystack's `QdrantDocumentStore` (qdrant-haystack) and `QdrantEmbeddingRetriever`, local mode", 108,
           FuzzTarget("haystack-qdrant", f"{TARGETS}.haystack:HaystackQdrant", "haystack"),
           # Haystack's own InMemoryDocumentStore: no backend, the side of the differential that says what a
           # Haystack filter means (haystack.utils.filters), as llamaindex-lancedb hangs off LanceDB's entry.
           FuzzTarget("haystack-memory", f"{TARGETS}.haystack:HaystackMemory", "haystack"),
           scale=500),
    bridge("haystack-chroma", "haystack_stores:HaystackChromaBridge", "HaystackChromaOptions",
           "Haystack's `ChromaDocumentStore` (chroma-haystack) and `ChromaEmbeddingRetriever`, in process", 109,
           FuzzTarget("haystack-chroma", f"{TARGETS}.haystack_chroma:HaystackChroma", "haystack")),
    bridge("haystack-pgvector", "haystack_pgvector:HaystackPgvectorBridge", "HaystackPgOptions",
           "Haystack's `PgvectorDocumentStore` (pgvector-haystack) on `PGVECTOR_DSN` (or the `pgvector` backend's "
           "server)", 110,
           FuzzTarget("haystack-pgvector", f"{TARGETS}.haystack_pgvector:HaystackPgvector", "haystack")),
    bridge("haystack-milvus", "haystack_milvus:HaystackMilvusBridge", "HaystackMilvusOptions",
           "Haystack's `MilvusDocumentStore` (milvus-haystack) over Milvus Lite in process", 111,
           FuzzTarget("haystack-milvus", f"{TARGETS}.haystack_milvus:HaystackMilvus", "haystack")),
)
