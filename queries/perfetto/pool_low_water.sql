-- Pool low-water marks: each pool counter's fewest value (e.g. free buffers) and when it first got there, in a trace exported by tband-perfetto.
--
-- The rows of pool_low_water.sql but its pool_key column: the export names
-- a pool's group after its kind and name only.
--
-- A pool's counters are the counter tracks of its group `<kind> <pool
-- name>` under "Objects", each named after its counter. The kind is that
-- of the group's lanes (`<kind> <n>`); a pool without lanes (no lifetime)
-- is split at its group name's first space.
--
-- Columns:
--   kind          the kind of object the pool holds
--   pool_name     the pool's name
--   counter       the counter (free, ...)
--   samples       values the events stated
--   low_water     the fewest
--   low_water_ns  the first time the counter was at it
WITH values_of AS (
  SELECT k.id AS track_id, k.name AS counter, g.name AS pool_group, c.ts, c.value,
    COALESCE((SELECT RTRIM(RTRIM(lane.name, '0123456789'), ' ') FROM track lane
              WHERE lane.parent_id = g.id AND lane.id NOT IN (SELECT id FROM counter_track)
              LIMIT 1),
             SUBSTR(g.name, 1, INSTR(g.name, ' ') - 1)) AS kind
  FROM counter c
  JOIN counter_track k ON k.id = c.track_id
  JOIN track g ON g.id = k.parent_id
  JOIN track o ON o.id = g.parent_id AND o.name = 'Objects'
), lows AS (
  SELECT track_id, counter, pool_group, kind, COUNT(*) AS samples, MIN(value) AS low_water
  FROM values_of GROUP BY track_id, counter, pool_group, kind
)
SELECT l.kind, SUBSTR(l.pool_group, LENGTH(l.kind) + 2) AS pool_name,
  l.counter, l.samples, CAST(l.low_water AS INT) AS low_water,
  (SELECT MIN(v.ts) FROM values_of v WHERE v.track_id = l.track_id AND v.value = l.low_water) AS low_water_ns
FROM lows l
ORDER BY l.kind, pool_name, l.counter;
