-- Fill levels of queues and semaphores: operations that stated a level, high-water mark, time at it and time-weighted average level, from the counter tracks of the "Queues" group.
--
-- The rows of queue_levels.sql, from a trace exported by tband-perfetto. A
-- level lasts from the operation that set it to the next one (the last one
-- to the end of the trace: trace_end(), as times start at 0, the trace's
-- first event).
--
-- Columns:
--   queue_name     the queue
--   operations     operations that stated a level
--   high_water     highest level seen
--   high_water_ns  time spent at that level
--   avg_level      time-weighted average level, 2 decimals
WITH levels AS (
  SELECT c.track_id, CAST(c.value AS INT) AS len_after,
    COALESCE(LEAD(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts, c.id), trace_end()) - c.ts AS held_ns
  FROM counter c
  JOIN track t ON t.id = c.track_id
  JOIN track g ON g.id = t.parent_id AND g.name = 'Queues'
), stats AS (
  SELECT track_id, COUNT(*) AS operations, MAX(len_after) AS high_water,
    SUM(len_after * held_ns) AS level_ns, SUM(held_ns) AS held_ns
  FROM levels GROUP BY track_id
), at_high AS (
  SELECT l.track_id, SUM(l.held_ns) AS high_water_ns
  FROM levels l JOIN stats s ON s.track_id = l.track_id AND l.len_after = s.high_water
  GROUP BY l.track_id
)
SELECT t.name AS queue_name, s.operations, s.high_water, h.high_water_ns,
  ROUND(CAST(s.level_ns AS DOUBLE) / NULLIF(s.held_ns, 0), 2) AS avg_level
FROM stats s
JOIN track t ON t.id = s.track_id
JOIN at_high h ON h.track_id = s.track_id
ORDER BY t.name;
