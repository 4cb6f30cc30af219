-- Why tasks waited: the slices of each task's "Wait reason" track in a trace exported by tband-perfetto.
--
-- Slice names are the model's block reasons (queue_receive, queue_send,
-- semaphore, mutex, delay, delay_until, suspended, ...); the queue a task
-- waited on is the slice argument debug.queue.
--
-- Columns:
--   task_name  the task (the wait track's parent thread)
--   reason     why it waited
--   queue      the queue, semaphore or mutex it waited on (NULL if none)
--   count      times it waited so
--   total_ns, max_ns   time spent waiting
SELECT t.name AS task_name, s.name AS reason,
  EXTRACT_ARG(s.arg_set_id, 'debug.queue') AS queue,
  COUNT(*) AS count, SUM(s.dur) AS total_ns, MAX(s.dur) AS max_ns
FROM slice s
JOIN track w ON w.id = s.track_id AND w.name = 'Wait reason'
JOIN thread_track tt ON tt.id = w.parent_id
JOIN thread t USING (utid)
GROUP BY t.name, reason, queue
ORDER BY total_ns DESC;
