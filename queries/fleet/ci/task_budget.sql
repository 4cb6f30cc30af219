-- ci/task_budget over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/ci/task_budget.sql.
--
-- Parameters:
--   max_load_pct = 90        highest allowed load of one task, in % of the trace
--   max_ready_ns = 10000000  longest allowed ready-to-running latency, in ns
WITH task_load_pct AS (
  SELECT l.trace, l.task_id, CAST(SUM(l.run_ns) AS DOUBLE) * 100 / NULLIF(MIN(i.duration_ns), 0) AS load_pct
  FROM task_run_time l JOIN trace_info i ON i.trace = l.trace GROUP BY l.trace, l.task_id
), ready AS (
  SELECT r.trace, r.task_id, MAX(r.latency_ns) AS max_ns
  FROM ready_latency r JOIN tasks t ON t.trace = r.trace AND t.task_id = r.task_id
  WHERE t.kind <> 'idle' GROUP BY r.trace, r.task_id
), violations AS (
  SELECT l.trace, l.task_id, 'load_pct' AS violation, ROUND(l.load_pct, 2) AS value,
    CAST(:max_load_pct AS DOUBLE) AS budget
  FROM task_load_pct l JOIN tasks t ON t.trace = l.trace AND t.task_id = l.task_id
  WHERE t.kind <> 'idle' AND l.load_pct > CAST(:max_load_pct AS DOUBLE)
  UNION ALL
  SELECT trace, task_id, 'ready_latency_ns', CAST(max_ns AS DOUBLE), CAST(:max_ready_ns AS DOUBLE)
  FROM ready WHERE max_ns > CAST(:max_ready_ns AS BIGINT)
)
SELECT v.trace, v.task_id, COALESCE(t.name, 'task ' || CAST(v.task_id AS STRING)) AS task_name,
  v.violation, v.value, v.budget
FROM violations v LEFT JOIN tasks t ON t.trace = v.trace AND t.task_id = v.task_id
ORDER BY v.trace, v.task_id, v.violation
