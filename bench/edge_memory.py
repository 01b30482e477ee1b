"""What qdrant-edge's memory is made of: resident memory around its ingest and its HNSW build.

Generates a corpus, prepares it as a sweep does (vectors in memory), then ingests it into one
qdrant-edge shard and builds it, sampling the process's anonymous (``RssAnon``) and file-backed
(``RssFile``) resident memory every 0.2 s. ``--drop`` and ``--integer`` change which payload
indexes the shard has, to price each one (``bench/README.md``, "What qdrant-edge's memory is
made of"; the numbers there came from an earlier, untidied copy of this script).

    .venv/bin/python bench/edge_memory.py 200000 qdrant-edge
    .venv/bin/python bench/edge_memory.py 200000 qdrant-edge --drop groups
    .venv/bin/python bench/edge_memory.py 200000 qdrant-edge --integer revision   # as before: 8 indexes
    .venv/bin/python bench/edge_memory.py 200000 qdrant-edge:segment_docs=50000 --ingest-only
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from filterproof.adapters.qdrant import edge
from filterproof.adapters.registry import open_backend
from filterproof.evaluation.runner import index, release_memory
from filterproof.evaluation.truth import prepare
from filterproof.scale.generator import GeneratorConfig, generate


def resident() -> tuple[int, int]:
    """(RssAnon, RssFile) of this process, in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["RssAnon"].split()[0]) // 1024, int(fields["RssFile"].split()[0]) // 1024


class Peak:
    """The largest anonymous, file-backed and summed resident memory since the last ``reset``."""

    def __init__(self) -> None:
        self.reset()
        threading.Thread(target=self._sample, daemon=True).start()

    def reset(self) -> None:
        self.anon = self.file = self.sum = 0

    def _sample(self) -> None:
        while True:
            anon, file = resident()
            self.anon, self.file, self.sum = max(self.anon, anon), max(self.file, file), max(self.sum, anon + file)
            time.sleep(0.2)

    def __str__(self) -> str:
        return f"peak anon {self.anon} MB, file {self.file} MB, sum {self.sum} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", type=int)
    parser.add_argument("spec", help="a qdrant-edge backend spec, e.g. qdrant-edge:memory=cold")
    parser.add_argument("--drop", action="append", default=[], help="a payload index to leave out")
    parser.add_argument("--integer", action="append", default=[], help="an integer payload index to add")
    parser.add_argument("--ingest-only", action="store_true", help="stop before the final optimize()")
    args = parser.parse_args()
    peak = Peak()
    corpus = generate(GeneratorConfig(documents=args.documents, seed=0))
    prepared = prepare(corpus.fixture, depth=10, embedding="svd", levels=corpus.levels)
    release_memory()
    print(f"prepared: anon/file {resident()} MB; {peak}", flush=True)
    adapter = open_backend(args.spec)
    indexes = {f: k for f, k in adapter.indexes.items() if f not in args.drop}
    schema = edge.index_schema

    def with_integers(kind: Any, memory: Any = None, links: bool = True) -> Any:
        return qe.IntegerIndexParams(memory=memory) if kind == "integer" else schema(kind, memory, links)

    edge.index_schema = with_integers  # only for this measurement: the adapter has no integer index
    type(adapter).indexes = property(lambda _: {**indexes, **{f: "integer" for f in args.integer}})
    print("payload indexes:", ", ".join(adapter.indexes), flush=True)
    peak.reset()
    start = time.perf_counter()
    index(adapter, prepared)
    release_memory()
    print(f"ingest: anon/file {resident()} MB; {peak}; {time.perf_counter() - start:.1f} s", flush=True)
    if not args.ingest_only:
        start = time.perf_counter()
        adapter.optimize()
        release_memory()
        print(f"built: anon/file {resident()} MB; {peak}; {time.perf_counter() - start:.1f} s", flush=True)
        print(f"segments: {adapter.shard.info().segments_count}")
    adapter.close()


if __name__ == "__main__":
    main()
