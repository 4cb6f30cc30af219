-- Task responsiveness: ready-to-running latency (scheduling delay), run-slice lengths and preemptions, per task.
--
-- Ready latencies count every ready state that ended with the task running.
-- Slices are the task's completed scheduling slices (on any core).
-- Percentiles are nearest-rank.
--
-- Columns:
--   task_id       the task
--   task_name     its name
--   ready_count   ready states that ended with the task running
--   ready_p50_ns, ready_p95_ns, ready_p99_ns, ready_max_ns   ready-to-running latency
--   slices        completed slices
--   slice_min_ns, slice_avg_ns, slice_max_ns   slice length (avg rounded to ns)
--   preemptions   times it went from running to ready because something else took the core
WITH latencies AS (
  -- Latencies counted per distinct value: the percentiles then sort the
  -- distinct values, not every ready state.
  SELECT task_id, latency_ns, COUNT(*) AS c FROM ready_latency GROUP BY task_id, latency_ns
), ready AS (
  -- One running count over all tasks in (task, latency) order: a single
  -- window is much cheaper in DuckDB than one per task partition.
  SELECT task_id, latency_ns, c,
    SUM(c) OVER (ORDER BY task_id, latency_ns ROWS UNBOUNDED PRECEDING) AS upto
  FROM latencies
), totals AS (
  -- Per task: its count, and the running count before its first latency.
  SELECT task_id, SUM(c) AS n, MIN(upto - c) AS before FROM ready GROUP BY task_id
), ready_stats AS (
  SELECT r.task_id, t.n AS ready_count,
    MIN(CASE WHEN (r.upto - t.before) * 100 >= t.n * 50 THEN r.latency_ns END) AS ready_p50_ns,
    MIN(CASE WHEN (r.upto - t.before) * 100 >= t.n * 95 THEN r.latency_ns END) AS ready_p95_ns,
    MIN(CASE WHEN (r.upto - t.before) * 100 >= t.n * 99 THEN r.latency_ns END) AS ready_p99_ns,
    MAX(r.latency_ns) AS ready_max_ns
  FROM ready r JOIN totals t ON t.task_id = r.task_id GROUP BY r.task_id, t.n
), slice_stats AS (
  SELECT task_id, COUNT(*) AS slices, MIN(dur_ns) AS slice_min_ns,
    CAST(ROUND(AVG(dur_ns)) AS BIGINT) AS slice_avg_ns, MAX(dur_ns) AS slice_max_ns
  FROM sched_slices WHERE truncated = 0 GROUP BY task_id
), preempted AS (
  SELECT task_id, COUNT(*) AS preemptions FROM task_states
  WHERE state = 'ready' AND reason = 'preempted' GROUP BY task_id
)
SELECT t.task_id, t.name AS task_name,
  COALESCE(r.ready_count, 0) AS ready_count, r.ready_p50_ns, r.ready_p95_ns, r.ready_p99_ns, r.ready_max_ns,
  COALESCE(s.slices, 0) AS slices, s.slice_min_ns, s.slice_avg_ns, s.slice_max_ns,
  COALESCE(p.preemptions, 0) AS preemptions
FROM tasks t
LEFT JOIN ready_stats r ON r.task_id = t.task_id
LEFT JOIN slice_stats s ON s.task_id = t.task_id
LEFT JOIN preempted p ON p.task_id = t.task_id
ORDER BY t.task_id
