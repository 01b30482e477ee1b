"""Options of the ``chroma`` and ``chroma-server`` backends (no chromadb import: validated before it loads)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from filterproof.adapters.options import ReplaceOption, RevisionOption
from filterproof.adapters.paths import check_directory

EF_SEARCH = 200
EF_CONSTRUCTION = 200
MAX_NEIGHBORS = 32
"""HNSW defaults, above Chroma's own (100/100/16), which lose recall on clustered vectors
(docs/backends/chroma.md has the measurement)."""


class ChromaOptions(RevisionOption, ReplaceOption):
    """``chroma``: Chroma in process."""

    path: Annotated[str | None, AfterValidator(check_directory)] = Field(
        None, description="persist here (PersistentClient); default: in memory")
    collection: str | None = Field(None, min_length=3, max_length=512,
                                   description="collection name; default: a fresh one per adapter")
    ef_search: int = Field(EF_SEARCH, ge=1, description="HNSW search beam")
    ef_construction: int = Field(EF_CONSTRUCTION, ge=1, description="HNSW build beam")
    max_neighbors: int = Field(MAX_NEIGHBORS, ge=1, description="HNSW graph degree")


class ChromaServerOptions(RevisionOption, ReplaceOption):
    """``chroma-server``: a Chroma server over HTTP."""

    url: str | None = Field(None, description="server URL; default $CHROMA_URL, else a server of our own")
    server: Literal["process", "docker"] = Field(
        "process", description="without a URL: `chroma run` as a child process, or a container")
    collection: str | None = Field(None, min_length=3, max_length=512,
                                   description="collection name (kept after the run); default: a fresh one, dropped")
    ef_search: int = Field(EF_SEARCH, ge=1)
    ef_construction: int = Field(EF_CONSTRUCTION, ge=1)
    max_neighbors: int = Field(MAX_NEIGHBORS, ge=1)
