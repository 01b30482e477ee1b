"""The bridges: the engines reached through LangChain's and LlamaIndex's integrations (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

HERE = "filterproof.adapters.bridges"
TARGETS = "filterproof.fuzz.targets"
LANGCHAIN, LLAMAINDEX = "integrations/langchain.md", "integrations/llamaindex.md"


def bridge(name: str, factory: str, options: str, summary: str, order: int, *fuzz: FuzzTarget) -> Store:
    framework = name.split("-")[0]
    return Store(name, f"{HERE}.{factory}", f"{HERE}.options:{options}", framework, summary,
                 f"{LANGCHAIN if framework == 'langchain' else LLAMAINDEX}#{name}", kind="bridge", order=order,
                 fuzz=fuzz)


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
)
