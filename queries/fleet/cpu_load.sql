-- cpu_load over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/cpu_load.sql.
WITH per_task AS (
  SELECT l.trace, l.core_id, l.task_id, COALESCE(t.name, 'task ' || CAST(l.task_id AS STRING)) AS task_name,
    COALESCE(t.kind, 'normal') AS kind, l.run_ns, l.isr_ns
  FROM task_run_time l LEFT JOIN tasks t ON t.trace = l.trace AND t.task_id = l.task_id
), busy AS (
  SELECT trace, core_id, SUM(run_ns) AS run_ns FROM per_task WHERE kind <> 'idle' GROUP BY trace, core_id
), isr AS (
  SELECT trace, core_id, SUM(dur_ns) AS isr_ns FROM isr_slices WHERE depth = 0 GROUP BY trace, core_id
), totals AS (
  SELECT c.trace, c.core_id, CAST(NULL AS BIGINT) AS task_id, '(core total)' AS task_name, 'total' AS kind,
    COALESCE(b.run_ns, 0) AS run_ns, COALESCE(i.isr_ns, 0) AS isr_ns
  FROM cores c
  LEFT JOIN busy b ON b.trace = c.trace AND b.core_id = c.core_id
  LEFT JOIN isr i ON i.trace = c.trace AND i.core_id = c.core_id
), all_rows AS (
  SELECT trace, core_id, task_id, task_name, kind, run_ns, isr_ns, run_ns AS load_ns FROM per_task
  UNION ALL
  SELECT trace, core_id, task_id, task_name, kind, run_ns, isr_ns, run_ns + isr_ns FROM totals
)
SELECT a.trace, a.core_id, a.task_id, a.task_name, a.kind, a.run_ns, a.isr_ns,
  ROUND(CAST(a.load_ns AS DOUBLE) * 100 / NULLIF(i.duration_ns, 0), 2) AS load_pct
FROM all_rows a JOIN trace_info i ON i.trace = a.trace
ORDER BY a.trace, a.core_id, CASE WHEN a.task_id IS NULL THEN 1 ELSE 0 END, a.task_id
