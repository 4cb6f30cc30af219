-- Queues, semaphores and mutexes: high-water mark, time at it, traffic, time full/empty, mutex holds and contention.
--
-- A queue's level is known from its first operation that states it
-- (len_after) and lasts until its next such operation or the end of the trace.
-- Operations at the same time are taken in the order they happened, the
-- rowid order of queue_ops_stored (the view queue_ops has no rowid).
--
-- Columns:
--   queue_id       the queue
--   queue_name     its name
--   kind           queue, counting_semaphore, binary_semaphore, mutex, recursive_mutex, queue_set, event_flags, unknown
--   capacity       capacity in items, where known
--   high_water     highest fill level seen
--   high_water_ns  time spent at that level
--   sends          items put in (send, overwrite; a semaphore given, a mutex released)
--   receives       items taken out (a semaphore taken, a mutex locked)
--   full_ns        time at capacity (NULL if the capacity is unknown)
--   empty_ns       time at level 0
--   holds          mutexes: times taken (NULL for other kinds)
--   hold_max_ns    mutexes: longest hold
--   hold_avg_ns    mutexes: average hold (rounded to ns)
--   blocked_tasks  tasks that blocked on it (contention)
--   blocked_ns     total time tasks spent blocked on it
WITH levels AS (
  SELECT queue_id, len_after,
    COALESCE(LEAD(ts_ns) OVER (PARTITION BY queue_id ORDER BY ts_ns, rowid),
             (SELECT duration_ns FROM trace_info)) - ts_ns AS held_ns
  FROM queue_ops_stored WHERE len_after IS NOT NULL
), ops AS (
  SELECT queue_id,
    SUM(CASE WHEN op IN ('send', 'overwrite') THEN 1 ELSE 0 END) AS sends,
    SUM(CASE WHEN op = 'receive' THEN 1 ELSE 0 END) AS receives
  FROM queue_ops GROUP BY queue_id
), time_at AS (
  SELECT l.queue_id,
    SUM(CASE WHEN l.len_after = q.high_water THEN l.held_ns ELSE 0 END) AS high_water_ns,
    SUM(CASE WHEN l.len_after >= q.capacity THEN l.held_ns ELSE 0 END) AS full_ns,
    SUM(CASE WHEN l.len_after = 0 THEN l.held_ns ELSE 0 END) AS empty_ns
  FROM levels l JOIN queues q ON q.queue_id = l.queue_id GROUP BY l.queue_id
), holds AS (
  SELECT queue_id, COUNT(*) AS holds, MAX(dur_ns) AS hold_max_ns,
    CAST(ROUND(AVG(dur_ns)) AS BIGINT) AS hold_avg_ns
  FROM mutex_holds GROUP BY queue_id
), blocked AS (
  SELECT queue_id, COUNT(DISTINCT task_id) AS blocked_tasks, SUM(dur_ns) AS blocked_ns
  FROM task_states WHERE state = 'blocked' AND queue_id IS NOT NULL GROUP BY queue_id
)
SELECT q.queue_id, q.name AS queue_name, q.kind, q.capacity, q.high_water,
  COALESCE(a.high_water_ns, 0) AS high_water_ns,
  COALESCE(o.sends, 0) AS sends, COALESCE(o.receives, 0) AS receives,
  CASE WHEN q.capacity IS NOT NULL THEN COALESCE(a.full_ns, 0) END AS full_ns,
  COALESCE(a.empty_ns, 0) AS empty_ns,
  CASE WHEN q.kind IN ('mutex', 'recursive_mutex') THEN COALESCE(h.holds, 0) END AS holds,
  h.hold_max_ns, h.hold_avg_ns,
  COALESCE(b.blocked_tasks, 0) AS blocked_tasks, COALESCE(b.blocked_ns, 0) AS blocked_ns
FROM queues q
LEFT JOIN time_at a ON a.queue_id = q.queue_id
LEFT JOIN ops o ON o.queue_id = q.queue_id
LEFT JOIN holds h ON h.queue_id = q.queue_id
LEFT JOIN blocked b ON b.queue_id = q.queue_id
ORDER BY q.queue_id
