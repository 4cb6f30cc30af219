-- Pool low-water marks: each pool counter's fewest value (e.g. free buffers) and when it first got there.
--
-- Counters are what the lifetime rules set (the free buffers of Zephyr's
-- network-buffer pools are built in).
--
-- Columns:
--   kind          the kind of object the pool holds
--   pool_name     the pool's name
--   pool_key      the pool's key
--   counter       the counter (free, ...)
--   samples       values the events stated
--   low_water     the fewest
--   low_water_ns  the first time the counter was at it
WITH lows AS (
  SELECT kind, pool_key, counter, COUNT(*) AS samples, MIN(value) AS low_water
  FROM object_counters GROUP BY kind, pool_key, counter
)
SELECT l.kind, MIN(c.pool_name) AS pool_name, l.pool_key, l.counter, l.samples, l.low_water,
  MIN(CASE WHEN c.value = l.low_water THEN c.ts_ns END) AS low_water_ns
FROM lows l
JOIN object_counters c ON c.kind = l.kind AND c.pool_key = l.pool_key AND c.counter = l.counter
GROUP BY l.kind, l.pool_key, l.counter, l.samples, l.low_water
ORDER BY l.kind, pool_name, l.counter, l.pool_key
