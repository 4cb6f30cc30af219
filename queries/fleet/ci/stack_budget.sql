-- ci/stack_budget over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/ci/stack_budget.sql.
--
-- Parameters:
--   min_free_bytes = 256   fewest free stack bytes allowed to any task
SELECT s.trace, s.task_id, COALESCE(t.name, 'task ' || CAST(s.task_id AS STRING)) AS task_name, t.stack_size,
  MIN(s.free_bytes) AS min_free_bytes, MIN(s.ts_ns) AS first_ns,
  CAST(:min_free_bytes AS BIGINT) AS budget_bytes
FROM stack_margins s LEFT JOIN tasks t ON t.trace = s.trace AND t.task_id = s.task_id
WHERE s.free_bytes < CAST(:min_free_bytes AS BIGINT)
GROUP BY s.trace, s.task_id, t.name, t.stack_size
ORDER BY s.trace, s.task_id
