-- Task budget check: tasks above :max_load_pct of the CPU or with a ready-to-running latency above :max_ready_ns (no rows = within budget).
--
-- Meant for --fail-if-rows in CI: every row is a violation. Load is the
-- task's run time (ISR time excluded, all cores) over the trace duration, as
-- in cpu_load.sql. Idle tasks are not checked.
--
-- Columns:
--   task_id    the task
--   task_name  its name
--   violation  load_pct or ready_latency_ns
--   value      the task's load in % or its longest ready-to-running latency in ns
--   budget     the budget it broke
--
-- Parameters:
--   max_load_pct = 90        highest allowed load of one task, in % of the trace
--   max_ready_ns = 10000000  longest allowed ready-to-running latency, in ns
WITH task_load_pct AS (
  SELECT task_id, CAST(SUM(run_ns) AS DOUBLE) * 100
    / (SELECT NULLIF(duration_ns, 0) FROM trace_info) AS load_pct
  FROM task_run_time GROUP BY task_id
), ready AS (
  SELECT r.task_id, MAX(r.latency_ns) AS max_ns
  FROM ready_latency r JOIN tasks t ON t.task_id = r.task_id
  WHERE t.kind <> 'idle' GROUP BY r.task_id
), violations AS (
  SELECT l.task_id, 'load_pct' AS violation, ROUND(l.load_pct, 2) AS value,
    CAST(:max_load_pct AS DOUBLE) AS budget
  FROM task_load_pct l JOIN tasks t ON t.task_id = l.task_id
  WHERE t.kind <> 'idle' AND l.load_pct > CAST(:max_load_pct AS DOUBLE)
  UNION ALL
  SELECT task_id, 'ready_latency_ns', CAST(max_ns AS DOUBLE), CAST(:max_ready_ns AS DOUBLE)
  FROM ready WHERE max_ns > CAST(:max_ready_ns AS BIGINT)
)
SELECT v.task_id, COALESCE(t.name, 'task ' || CAST(v.task_id AS TEXT)) AS task_name, v.violation, v.value, v.budget
FROM violations v LEFT JOIN tasks t ON t.task_id = v.task_id
ORDER BY v.task_id, v.violation
