-- Why tasks waited: per task, reason and queue, how often and for how long (its blocked and suspended stretches).
--
-- A wait is a stretch of time a task spent blocked or suspended; its reason
-- is why (queue_receive, queue_send, semaphore, mutex, delay, delay_until,
-- suspended, ...; the state itself when no reason is known). A wait still
-- lasting when the trace ended counts up to the end.
--
-- Columns:
--   task_id    the task
--   task_name  its name
--   reason     why it waited
--   queue      the queue, semaphore or mutex it waited on (NULL if none)
--   count      times it waited so
--   total_ns, max_ns   time spent waiting
WITH waits AS (
  SELECT task_id, task_name, queue_name, dur_ns,
    CASE WHEN reason IS NULL OR reason = '' THEN state ELSE reason END AS reason
  FROM task_states_named WHERE state IN ('blocked', 'suspended')
)
SELECT task_id, task_name, reason, queue_name AS queue, COUNT(*) AS count,
  SUM(dur_ns) AS total_ns, MAX(dur_ns) AS max_ns
FROM waits
GROUP BY task_id, task_name, reason, queue_name
ORDER BY total_ns DESC, task_id, reason, COALESCE(queue_name, '')
