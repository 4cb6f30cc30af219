-- queue_high_water over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/queue_high_water.sql.
--
-- Operations at the same time are taken in the order they happened:
-- file_row_number, their order in the trace's file.
WITH levels AS (
  SELECT o.trace, o.queue_id, o.len_after,
    COALESCE(LEAD(o.ts_ns) OVER (PARTITION BY o.trace, o.queue_id ORDER BY o.ts_ns, o.file_row_number),
             i.duration_ns) - o.ts_ns AS held_ns
  FROM queue_ops o JOIN trace_info i ON i.trace = o.trace WHERE o.len_after IS NOT NULL
), ops AS (
  SELECT trace, queue_id,
    SUM(CASE WHEN op IN ('send', 'overwrite') THEN 1 ELSE 0 END) AS sends,
    SUM(CASE WHEN op = 'receive' THEN 1 ELSE 0 END) AS receives
  FROM queue_ops GROUP BY trace, queue_id
), time_at AS (
  SELECT l.trace, l.queue_id,
    SUM(CASE WHEN l.len_after = q.high_water THEN l.held_ns ELSE 0 END) AS high_water_ns,
    SUM(CASE WHEN l.len_after >= q.capacity THEN l.held_ns ELSE 0 END) AS full_ns,
    SUM(CASE WHEN l.len_after = 0 THEN l.held_ns ELSE 0 END) AS empty_ns
  FROM levels l JOIN queues q ON q.trace = l.trace AND q.queue_id = l.queue_id
  GROUP BY l.trace, l.queue_id
), holds AS (
  SELECT trace, queue_id, COUNT(*) AS holds, MAX(dur_ns) AS hold_max_ns,
    CAST(ROUND(AVG(dur_ns)) AS BIGINT) AS hold_avg_ns
  FROM mutex_holds GROUP BY trace, queue_id
), blocked AS (
  SELECT trace, queue_id, COUNT(DISTINCT task_id) AS blocked_tasks, SUM(dur_ns) AS blocked_ns
  FROM task_states WHERE state = 'blocked' AND queue_id IS NOT NULL GROUP BY trace, queue_id
)
SELECT q.trace, q.queue_id, q.name AS queue_name, q.kind, q.capacity, q.high_water,
  COALESCE(a.high_water_ns, 0) AS high_water_ns,
  COALESCE(o.sends, 0) AS sends, COALESCE(o.receives, 0) AS receives,
  CASE WHEN q.capacity IS NOT NULL THEN COALESCE(a.full_ns, 0) END AS full_ns,
  COALESCE(a.empty_ns, 0) AS empty_ns,
  CASE WHEN q.kind IN ('mutex', 'recursive_mutex') THEN COALESCE(h.holds, 0) END AS holds,
  h.hold_max_ns, h.hold_avg_ns,
  COALESCE(b.blocked_tasks, 0) AS blocked_tasks, COALESCE(b.blocked_ns, 0) AS blocked_ns
FROM queues q
LEFT JOIN time_at a ON a.trace = q.trace AND a.queue_id = q.queue_id
LEFT JOIN ops o ON o.trace = q.trace AND o.queue_id = q.queue_id
LEFT JOIN holds h ON h.trace = q.trace AND h.queue_id = q.queue_id
LEFT JOIN blocked b ON b.trace = q.trace AND b.queue_id = q.queue_id
ORDER BY q.trace, q.queue_id
