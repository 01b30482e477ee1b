"""SelfQueryRetriever picks no translator: langchain-community 0.4.2 no longer has DatabricksVectorSearch.

Standalone (langchain-classic, langchain-community, langchain-qdrant and qdrant-client, local mode in memory).
Seen with langchain-classic 1.0.8, langchain-community 0.4.2, langchain-qdrant 1.1.0 and qdrant-client 1.20.0.

SelfQueryRetriever(vectorstore=...) without structured_query_translator calls _get_builtin_translator, whose
first lines import DatabricksVectorSearch (and the other community stores) from langchain_community.vectorstores;
0.4.2 dropped it, so the retriever raises ImportError for every store, Qdrant's included, before it looks at the
store. An application must pass the translator itself (QdrantTranslator(metadata_key=...)).

Exit status 1: the bug reproduces (ImportError); 0: the retriever picked QdrantTranslator.
"""
import sys

from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models


class TableEmbeddings(Embeddings):  # our vector, no model
    def embed_documents(self, texts):
        return [[1.0, 0.0] for _ in texts]

    def embed_query(self, text):
        return [1.0, 0.0]


client = QdrantClient(":memory:")
client.create_collection("fuzz", vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
store = QdrantVectorStore(client, "fuzz", TableEmbeddings())
try:
    retriever = SelfQueryRetriever(query_constructor=RunnableLambda(lambda _: None), vectorstore=store)
except ImportError as error:
    print(f"ImportError: {error}", file=sys.stderr)
    sys.exit(1)
print(f"picked {type(retriever.structured_query_translator).__name__}")
sys.exit(0)
