-- pgvector HNSW (0.8.2 on PostgreSQL 18.3, m = 16, ef_construction = 64): rows the graph never reaches.
-- 40 rows at the same cosine similarity (0.29) from each other. Run with psql against any pgvector 0.8 server:
--   psql "$PGVECTOR_DSN" -f bench/pgvector_equidistant.sql
-- Measured (5 runs, same result): 33 of 40 rows come back, whatever ef_search or iterative scan; 40 with an
-- exact scan, and 40 through an index built with m = 32, ef_construction = 200. 33 = 2 * m + 1: the first 33
-- rows fill each other's neighbour lists (2 * m at layer 0), and a later row, as close to them as they are
-- to each other, never displaces a neighbour, so nothing links to it.
CREATE EXTENSION IF NOT EXISTS vector;
DROP TABLE IF EXISTS equidistant;
CREATE TABLE equidistant (id int PRIMARY KEY, v vector(41));
INSERT INTO equidistant
SELECT i, (SELECT array_agg(CASE WHEN j = 0 THEN sqrt(0.29) WHEN j = i THEN sqrt(0.71) ELSE 0 END ORDER BY j)
           FROM generate_series(0, 40) j)::vector
FROM generate_series(1, 40) i;
CREATE INDEX ON equidistant USING hnsw (v vector_cosine_ops);
SET enable_seqscan = off;
SET hnsw.ef_search = 1000;
SET hnsw.iterative_scan = strict_order;
SELECT count(*) AS reached_through_hnsw   -- 33
FROM (SELECT id FROM equidistant ORDER BY v <=> ('[1' || repeat(',0', 40) || ']')::vector LIMIT 1000) found;
RESET enable_seqscan;
DROP TABLE equidistant;
