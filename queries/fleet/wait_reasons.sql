-- wait_reasons over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/wait_reasons.sql.
WITH waits AS (
  SELECT s.trace, s.task_id, t.name AS task_name, q.name AS queue_name, s.dur_ns,
    CASE WHEN s.reason IS NULL OR s.reason = '' THEN s.state ELSE s.reason END AS reason
  FROM task_states s
  LEFT JOIN tasks t ON t.trace = s.trace AND t.task_id = s.task_id
  LEFT JOIN queues q ON q.trace = s.trace AND q.queue_id = s.queue_id
  WHERE s.state IN ('blocked', 'suspended')
)
SELECT trace, task_id, task_name, reason, queue_name AS queue, COUNT(*) AS count,
  SUM(dur_ns) AS total_ns, MAX(dur_ns) AS max_ns
FROM waits
GROUP BY trace, task_id, task_name, reason, queue_name
ORDER BY trace, total_ns DESC, task_id, reason, COALESCE(queue_name, '')
