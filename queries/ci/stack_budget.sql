-- Stack budget check: the tasks whose free stack fell below :min_free_bytes (no rows = within budget).
--
-- Meant for --fail-if-rows in CI: every row is a violation. Only tasks
-- that report their free stack (stack_margins) are checked.
--
-- Columns:
--   task_id         the task
--   task_name       its name
--   stack_size      its stack's bytes (NULL when the trace does not say)
--   min_free_bytes  the fewest bytes of its stack it had left
--   first_ns        when it first had fewer than the budget
--   budget_bytes    the budget checked
--
-- Parameters:
--   min_free_bytes = 256   fewest free stack bytes allowed to any task
SELECT s.task_id, COALESCE(t.name, 'task ' || CAST(s.task_id AS TEXT)) AS task_name, t.stack_size,
  MIN(s.free_bytes) AS min_free_bytes, MIN(s.ts_ns) AS first_ns,
  CAST(:min_free_bytes AS BIGINT) AS budget_bytes
FROM stack_margins s LEFT JOIN tasks t ON t.task_id = s.task_id
WHERE s.free_bytes < CAST(:min_free_bytes AS BIGINT)
GROUP BY s.task_id, t.name, t.stack_size
ORDER BY s.task_id
