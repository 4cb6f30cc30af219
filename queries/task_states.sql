-- Time each task spent in each state (running, ready, blocked, suspended, deleted).
--
-- Columns:
--   task_id    the task
--   task_name  its name
--   state      running, ready, blocked, suspended or deleted
--   count      stretches of time in that state
--   total_ns   total time in that state
--   pct        total_ns * 100 / trace duration, 2 decimals
SELECT s.task_id, COALESCE(t.name, 'task ' || CAST(s.task_id AS TEXT)) AS task_name, s.state,
  COUNT(*) AS count, SUM(s.dur_ns) AS total_ns,
  ROUND(CAST(SUM(s.dur_ns) AS DOUBLE) * 100 / (SELECT NULLIF(duration_ns, 0) FROM trace_info), 2) AS pct
FROM task_states s LEFT JOIN tasks t ON t.task_id = s.task_id
GROUP BY s.task_id, t.name, s.state
ORDER BY s.task_id, s.state
