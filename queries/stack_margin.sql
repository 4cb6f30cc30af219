-- Stack margins: per task that reported its free stack, the fewest bytes it had left, when first, and the share of its stack used then.
--
-- The fewest free bytes are the task's high-water mark as the trace left
-- it (the last of its stack_margins). Tightest stacks first.
--
-- Columns:
--   task_name       the task
--   stack_size      its stack's bytes (NULL when the trace does not say)
--   min_free_bytes  the fewest bytes of its stack it had left
--   min_free_ns     when it first had so few
--   used_pct        the share of its stack used then, % (NULL without stack_size)
WITH lows AS (
  SELECT task_id, MIN(free_bytes) AS min_free_bytes FROM stack_margins GROUP BY task_id
), firsts AS (
  SELECT l.task_id, l.min_free_bytes, MIN(s.ts_ns) AS min_free_ns
  FROM lows l JOIN stack_margins s ON s.task_id = l.task_id AND s.free_bytes = l.min_free_bytes
  GROUP BY l.task_id, l.min_free_bytes
)
SELECT COALESCE(t.name, 'task ' || CAST(f.task_id AS TEXT)) AS task_name, t.stack_size,
  f.min_free_bytes, f.min_free_ns,
  ROUND(CAST(t.stack_size - f.min_free_bytes AS DOUBLE) * 100 / NULLIF(t.stack_size, 0), 2) AS used_pct
FROM firsts f
LEFT JOIN tasks t ON t.task_id = f.task_id
ORDER BY f.min_free_bytes, task_name, f.task_id
