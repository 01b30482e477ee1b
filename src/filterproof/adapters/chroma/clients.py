"""Chroma clients as filterproof opens them: telemetry off, a server's URL read once."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import chromadb
from chromadb.config import Settings as ChromaSettings


def client_settings() -> ChromaSettings:
    return ChromaSettings(anonymized_telemetry=False)


def http_client(url: str) -> Any:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if not parts.hostname:
        raise ValueError(f"chroma url {url!r}: expected http(s)://host:port")
    ssl = parts.scheme == "https"
    return chromadb.HttpClient(host=parts.hostname, port=parts.port or (443 if ssl else 8000), ssl=ssl,
                               settings=client_settings())
