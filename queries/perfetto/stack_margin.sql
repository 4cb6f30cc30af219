-- Stack margins: per task that reported its free stack, the fewest bytes it had left, when first, in a trace exported by tband-perfetto.
--
-- The rows of stack_margin.sql but its stack_size and used_pct columns:
-- the export does not say how big a task's stack is.
--
-- A task's stack margin is its thread's counter track "stack free", or,
-- for an idle task (which has no thread of its own), the counter track
-- `<task> stack free` in the group "Memory": its value is the fewest bytes
-- of the stack the task had left so far, set each time it fell.
--
-- Columns:
--   task_name       the task
--   min_free_bytes  the fewest bytes of its stack it had left
--   min_free_ns     when it first had so few
WITH tracks AS (
  SELECT k.id AS track_id, t.name AS task_name
  FROM thread_counter_track k JOIN thread t USING (utid)
  WHERE k.name = 'stack free'
  UNION ALL
  SELECT k.id, SUBSTR(k.name, 1, LENGTH(k.name) - LENGTH(' stack free'))
  FROM counter_track k JOIN track m ON m.id = k.parent_id AND m.name = 'Memory'
  WHERE k.name GLOB '* stack free'
), margins AS (
  SELECT k.track_id, k.task_name, c.ts, CAST(c.value AS INT) AS free_bytes
  FROM tracks k JOIN counter c ON c.track_id = k.track_id
), lows AS (
  SELECT track_id, task_name, MIN(free_bytes) AS min_free_bytes FROM margins GROUP BY track_id, task_name
)
SELECT l.task_name, l.min_free_bytes,
  (SELECT MIN(m.ts) FROM margins m WHERE m.track_id = l.track_id AND m.free_bytes = l.min_free_bytes) AS min_free_ns
FROM lows l
ORDER BY l.min_free_bytes, l.task_name;
