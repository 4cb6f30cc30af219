-- isr_to_task_latency over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/isr_to_task_latency.sql.
WITH latencies AS (
  SELECT trace, task_id, latency_ns, COUNT(*) AS c FROM ready_latency
  WHERE woken_by_isr_id IS NOT NULL GROUP BY trace, task_id, latency_ns
), r AS (
  SELECT trace, task_id, latency_ns, c,
    SUM(c) OVER (PARTITION BY trace, task_id ORDER BY latency_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
    SUM(c) OVER (PARTITION BY trace, task_id) AS n
  FROM latencies
)
SELECT r.trace, r.task_id, COALESCE(t.name, 'task ' || CAST(r.task_id AS STRING)) AS task_name,
  SUM(r.c) AS count, MIN(latency_ns) AS min_ns,
  MIN(CASE WHEN upto * 100 >= n * 50 THEN latency_ns END) AS p50_ns,
  MIN(CASE WHEN upto * 100 >= n * 99 THEN latency_ns END) AS p99_ns,
  MAX(latency_ns) AS max_ns
FROM r LEFT JOIN tasks t ON t.trace = r.trace AND t.task_id = r.task_id
GROUP BY r.trace, r.task_id, t.name
ORDER BY r.trace, r.task_id
