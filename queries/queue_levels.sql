-- Fill levels of queues and semaphores: operations that stated a level, high-water mark, time at it and time-weighted average level.
--
-- A queue's level is known from its first operation that states it
-- (len_after) and lasts until its next such operation or the end of the
-- trace. Operations at the same time are taken in the order they happened,
-- the rowid order of queue_ops_stored.
--
-- Columns:
--   queue_name     the queue
--   operations     operations that stated a level
--   high_water     highest level seen
--   high_water_ns  time spent at that level
--   avg_level      time-weighted average level, 2 decimals
WITH levels AS (
  SELECT queue_id, len_after,
    COALESCE(LEAD(ts_ns) OVER (PARTITION BY queue_id ORDER BY ts_ns, rowid),
             (SELECT duration_ns FROM trace_info)) - ts_ns AS held_ns
  FROM queue_ops_stored WHERE len_after IS NOT NULL
), stats AS (
  SELECT queue_id, COUNT(*) AS operations, MAX(len_after) AS high_water,
    SUM(len_after * held_ns) AS level_ns, SUM(held_ns) AS held_ns
  FROM levels GROUP BY queue_id
), at_high AS (
  SELECT l.queue_id, SUM(l.held_ns) AS high_water_ns
  FROM levels l JOIN stats s ON s.queue_id = l.queue_id AND l.len_after = s.high_water
  GROUP BY l.queue_id
)
SELECT q.name AS queue_name, s.operations, s.high_water, h.high_water_ns,
  ROUND(CAST(s.level_ns AS DOUBLE) / NULLIF(s.held_ns, 0), 2) AS avg_level
FROM stats s
JOIN queues q ON q.queue_id = s.queue_id
JOIN at_high h ON h.queue_id = s.queue_id
ORDER BY q.name, s.queue_id
