-- Object lifetimes per kind and pool: how many, how many still live at the end, and how long the others lived.
--
-- Objects are what the lifetime rules track (Zephyr's network buffers are
-- built in; --rules adds more). Lifetimes still live when the trace ended
-- (truncated) are counted in live_at_end and left out of the statistics.
-- Percentiles are nearest-rank.
--
-- Columns:
--   kind         the kind of object (net_buf, ...)
--   pool_name    its pool's name (NULL without a pool)
--   pool_key     its pool's key
--   count        lifetimes that ended
--   live_at_end  lifetimes never ended (see object_leaks)
--   min_ns, p50_ns, p99_ns, max_ns   lifetimes of those that ended
WITH durations AS (
  SELECT kind, pool_name, pool_key, dur_ns, COUNT(*) AS c
  FROM object_lifetimes WHERE truncated = 0 GROUP BY kind, pool_name, pool_key, dur_ns
), ranked AS (
  SELECT kind, pool_name, pool_key, dur_ns, c,
    SUM(c) OVER (PARTITION BY kind, pool_name, pool_key ORDER BY dur_ns ROWS UNBOUNDED PRECEDING) AS upto,
    SUM(c) OVER (PARTITION BY kind, pool_name, pool_key) AS n
  FROM durations
), stats AS (
  SELECT kind, pool_name, pool_key, SUM(c) AS count, MIN(dur_ns) AS min_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns,
    MIN(CASE WHEN upto * 100 >= n * 99 THEN dur_ns END) AS p99_ns,
    MAX(dur_ns) AS max_ns
  FROM ranked GROUP BY kind, pool_name, pool_key
), pools AS (
  SELECT kind, pool_name, pool_key, SUM(truncated) AS live_at_end
  FROM object_lifetimes GROUP BY kind, pool_name, pool_key
)
SELECT p.kind, p.pool_name, p.pool_key, COALESCE(s.count, 0) AS count, p.live_at_end,
  s.min_ns, s.p50_ns, s.p99_ns, s.max_ns
FROM pools p
LEFT JOIN stats s ON s.kind = p.kind
  AND s.pool_name IS NOT DISTINCT FROM p.pool_name AND s.pool_key IS NOT DISTINCT FROM p.pool_key
ORDER BY p.kind, COALESCE(p.pool_name, ''), COALESCE(p.pool_key, '')
