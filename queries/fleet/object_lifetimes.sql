-- object_lifetimes over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/object_lifetimes.sql.
WITH durations AS (
  SELECT trace, kind, pool_name, pool_key, dur_ns, COUNT(*) AS c
  FROM object_lifetimes WHERE truncated = 0 GROUP BY trace, kind, pool_name, pool_key, dur_ns
), ranked AS (
  SELECT trace, kind, pool_name, pool_key, dur_ns, c,
    SUM(c) OVER (PARTITION BY trace, kind, pool_name, pool_key ORDER BY dur_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
    SUM(c) OVER (PARTITION BY trace, kind, pool_name, pool_key) AS n
  FROM durations
), stats AS (
  SELECT trace, kind, pool_name, pool_key, SUM(c) AS count, MIN(dur_ns) AS min_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns,
    MIN(CASE WHEN upto * 100 >= n * 99 THEN dur_ns END) AS p99_ns,
    MAX(dur_ns) AS max_ns
  FROM ranked GROUP BY trace, kind, pool_name, pool_key
), pools AS (
  SELECT trace, kind, pool_name, pool_key, SUM(truncated) AS live_at_end
  FROM object_lifetimes GROUP BY trace, kind, pool_name, pool_key
)
SELECT p.trace, p.kind, p.pool_name, p.pool_key, COALESCE(s.count, 0) AS count, p.live_at_end,
  s.min_ns, s.p50_ns, s.p99_ns, s.max_ns
FROM pools p
LEFT JOIN stats s ON s.trace = p.trace AND s.kind = p.kind
  AND s.pool_name IS NOT DISTINCT FROM p.pool_name AND s.pool_key IS NOT DISTINCT FROM p.pool_key
ORDER BY p.trace, p.kind, COALESCE(p.pool_name, ''), COALESCE(p.pool_key, '')
