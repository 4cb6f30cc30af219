-- Why tasks waited: per task, reason and queue, how often and for how long, from each task's "Wait reason" track.
--
-- The rows of wait_reasons.sql, from a trace exported by tband-perfetto.
-- Slice names are the model's block reasons (queue_receive, queue_send,
-- semaphore, mutex, delay, delay_until, suspended, ...); the queue a task
-- waited on is the slice argument debug.queue. A wait cut by the end of the
-- trace is open (dur -1) and counts up to the end.
--
-- Where the SQL form differs: tasks are Perfetto threads, so tid stands in
-- for task_id.
--
-- Columns:
--   tid        the task's thread id
--   task_name  its name (the wait track is one of its thread's tracks)
--   reason     why it waited
--   queue      the queue, semaphore or mutex it waited on (NULL if none)
--   count      times it waited so
--   total_ns, max_ns   time spent waiting
SELECT t.tid, t.name AS task_name, s.name AS reason,
  EXTRACT_ARG(s.arg_set_id, 'debug.queue') AS queue,
  COUNT(*) AS count, SUM(IIF(s.dur < 0, trace_end() - s.ts, s.dur)) AS total_ns,
  MAX(IIF(s.dur < 0, trace_end() - s.ts, s.dur)) AS max_ns
FROM slice s
JOIN thread_track w ON w.id = s.track_id AND w.name = 'Wait reason'
JOIN thread t USING (utid)
GROUP BY t.tid, reason, queue
ORDER BY total_ns DESC;
