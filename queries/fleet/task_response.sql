-- task_response over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/task_response.sql.
WITH latencies AS (
  SELECT trace, task_id, latency_ns, COUNT(*) AS c FROM ready_latency GROUP BY trace, task_id, latency_ns
), ready AS (
  SELECT trace, task_id, latency_ns, c,
    SUM(c) OVER (PARTITION BY trace, task_id ORDER BY latency_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
    SUM(c) OVER (PARTITION BY trace, task_id) AS n
  FROM latencies
), ready_stats AS (
  SELECT trace, task_id, MIN(n) AS ready_count,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN latency_ns END) AS ready_p50_ns,
    MIN(CASE WHEN upto * 100 >= n * 95 THEN latency_ns END) AS ready_p95_ns,
    MIN(CASE WHEN upto * 100 >= n * 99 THEN latency_ns END) AS ready_p99_ns,
    MAX(latency_ns) AS ready_max_ns
  FROM ready GROUP BY trace, task_id
), slice_stats AS (
  SELECT trace, task_id, COUNT(*) AS slices, MIN(dur_ns) AS slice_min_ns,
    CAST(ROUND(AVG(dur_ns)) AS BIGINT) AS slice_avg_ns, MAX(dur_ns) AS slice_max_ns
  FROM sched_slices WHERE truncated = 0 GROUP BY trace, task_id
), preempted AS (
  SELECT trace, task_id, COUNT(*) AS preemptions FROM task_states
  WHERE state = 'ready' AND reason = 'preempted' GROUP BY trace, task_id
)
SELECT t.trace, t.task_id, t.name AS task_name,
  COALESCE(r.ready_count, 0) AS ready_count, r.ready_p50_ns, r.ready_p95_ns, r.ready_p99_ns, r.ready_max_ns,
  COALESCE(s.slices, 0) AS slices, s.slice_min_ns, s.slice_avg_ns, s.slice_max_ns,
  COALESCE(p.preemptions, 0) AS preemptions
FROM tasks t
LEFT JOIN ready_stats r ON r.trace = t.trace AND r.task_id = t.task_id
LEFT JOIN slice_stats s ON s.trace = t.trace AND s.task_id = t.task_id
LEFT JOIN preempted p ON p.trace = t.trace AND p.task_id = t.task_id
ORDER BY t.trace, t.task_id
