-- Fill levels of queues and semaphores: the counter tracks of the "Queues" group in a trace exported by tband-perfetto.
--
-- A level lasts from the operation that set it to the next one (the last
-- one to the end of the trace).
--
-- Columns:
--   queue_name     the queue
--   operations     operations that stated a level
--   high_water     highest level seen
--   high_water_ns  time spent at that level
--   avg_level      time-weighted average level, 2 decimals
WITH q AS (
  SELECT c.track_id, c.ts, c.value,
    COALESCE(LEAD(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts, c.id), trace_end()) - c.ts AS held_ns
  FROM counter c
  JOIN track t ON t.id = c.track_id
  JOIN track g ON g.id = t.parent_id AND g.name = 'Queues'
), stats AS (
  SELECT track_id, COUNT(*) AS operations, MAX(value) AS high_water,
    SUM(value * held_ns) * 1.0 / NULLIF(SUM(held_ns), 0) AS avg_level
  FROM q GROUP BY track_id
)
SELECT t.name AS queue_name, s.operations, CAST(s.high_water AS INT) AS high_water,
  (SELECT SUM(held_ns) FROM q WHERE q.track_id = s.track_id AND q.value = s.high_water) AS high_water_ns,
  ROUND(s.avg_level, 2) AS avg_level
FROM stats s
JOIN track t ON t.id = s.track_id
ORDER BY t.name;
