-- Latency from an ISR making a task ready (queue send or resume from an ISR) to that task running, per task.
--
-- Counts every ready state the model attributes to an ISR (task_states.woken_by_isr_id)
-- that ended with the task running. Percentiles are nearest-rank.
--
-- Columns:
--   task_id    the task
--   task_name  its name
--   count      ISR wake-ups followed by the task running
--   min_ns, p50_ns, p99_ns, max_ns   time from ready to running
WITH latencies AS (
  -- Latencies counted per distinct value: the percentiles then sort the
  -- distinct values, not every wake-up.
  SELECT task_id, latency_ns, COUNT(*) AS c FROM ready_latency
  WHERE woken_by_isr_id IS NOT NULL GROUP BY task_id, latency_ns
), r AS (
  SELECT task_id, latency_ns, c,
    SUM(c) OVER (PARTITION BY task_id ORDER BY latency_ns ROWS UNBOUNDED PRECEDING) AS upto,
    SUM(c) OVER (PARTITION BY task_id) AS n
  FROM latencies
)
SELECT r.task_id, COALESCE(t.name, 'task ' || CAST(r.task_id AS TEXT)) AS task_name, SUM(r.c) AS count,
  MIN(latency_ns) AS min_ns,
  MIN(CASE WHEN upto * 100 >= n * 50 THEN latency_ns END) AS p50_ns,
  MIN(CASE WHEN upto * 100 >= n * 99 THEN latency_ns END) AS p99_ns,
  MAX(latency_ns) AS max_ns
FROM r LEFT JOIN tasks t ON t.task_id = r.task_id
GROUP BY r.task_id, t.name
ORDER BY r.task_id
