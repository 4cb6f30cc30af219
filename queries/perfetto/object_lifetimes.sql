-- Object lifetimes per kind and pool, from the "Objects" group of a trace exported by tband-perfetto.
--
-- The rows of object_lifetimes.sql but its pool_key column: the export
-- names a pool's group after its kind and name only.
--
-- Each pool is a group `<kind> <pool name>` (`<kind>` for objects without a
-- pool) under "Objects", holding a lane track `<kind> <n>` per object alive
-- at once; a lifetime is a slice on a lane (its marks are instants nested
-- in it). A lifetime still live when the trace ended (slice argument
-- debug.truncated) is counted in live_at_end and left out of the
-- statistics. Percentiles are nearest-rank.
--
-- Columns:
--   kind         the kind of object (net_buf, ...)
--   pool_name    its pool's name (NULL without a pool)
--   count        lifetimes that ended
--   live_at_end  lifetimes never ended (see object_leaks)
--   min_ns, p50_ns, p99_ns, max_ns   lifetimes of those that ended
WITH lifetimes AS (
  SELECT g.id AS pool_track, g.name AS pool_group,
    RTRIM(RTRIM(k.name, '0123456789'), ' ') AS kind, s.dur,
    EXTRACT_ARG(s.arg_set_id, 'debug.truncated') IS NOT NULL AS truncated
  FROM slice s
  JOIN track k ON k.id = s.track_id
  JOIN track g ON g.id = k.parent_id
  JOIN track o ON o.id = g.parent_id AND o.name = 'Objects'
  WHERE s.depth = 0
), ranked AS (
  SELECT pool_track, dur,
    ROW_NUMBER() OVER (PARTITION BY pool_track ORDER BY dur) AS rn,
    COUNT(*) OVER (PARTITION BY pool_track) AS n
  FROM lifetimes WHERE NOT truncated
), stats AS (
  SELECT pool_track, COUNT(*) AS count, MIN(dur) AS min_ns,
    MIN(IIF(rn * 100 >= n * 50, dur, NULL)) AS p50_ns,
    MIN(IIF(rn * 100 >= n * 99, dur, NULL)) AS p99_ns,
    MAX(dur) AS max_ns
  FROM ranked GROUP BY pool_track
), pools AS (
  SELECT pool_track, kind,
    IIF(pool_group = kind, NULL, SUBSTR(pool_group, LENGTH(kind) + 2)) AS pool_name,
    SUM(truncated) AS live_at_end
  FROM lifetimes GROUP BY pool_track, kind, pool_group
)
SELECT p.kind, p.pool_name, COALESCE(s.count, 0) AS count, p.live_at_end,
  s.min_ns, s.p50_ns, s.p99_ns, s.max_ns
FROM pools p
LEFT JOIN stats s USING (pool_track)
ORDER BY p.kind, COALESCE(p.pool_name, '');
