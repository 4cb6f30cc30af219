-- task_states over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/task_states.sql.
SELECT s.trace, s.task_id, COALESCE(t.name, 'task ' || CAST(s.task_id AS STRING)) AS task_name, s.state,
  COUNT(*) AS count, SUM(s.dur_ns) AS total_ns,
  ROUND(CAST(SUM(s.dur_ns) AS DOUBLE) * 100 / NULLIF(MIN(i.duration_ns), 0), 2) AS pct
FROM task_states s
LEFT JOIN tasks t ON t.trace = s.trace AND t.task_id = s.task_id
JOIN trace_info i ON i.trace = s.trace
GROUP BY s.trace, s.task_id, t.name, s.state
ORDER BY s.trace, s.task_id, s.state
