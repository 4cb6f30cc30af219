-- Time each task spent in each state (running, ready, blocked, suspended, deleted), from Perfetto's thread_state table.
--
-- The rows of task_states.sql, from a trace exported by tband-perfetto, which
-- writes a task leaving the CPU as: preempted -> R+, ready (woken) -> R,
-- blocked or delayed -> S, suspended -> T, deleted -> Z (Perfetto's letter
-- for a thread that has exited); here they are the model's states again (R
-- and R+ both ready). Why a task was blocked (queue, semaphore, delay) is
-- on its "Wait reason" track; see wait_reasons.sql. A state still lasting
-- when the trace ended is open (dur -1) and counts up to the end
-- (trace_end(): times start at 0, the trace's first event).
--
-- Where the SQL form differs: tasks are Perfetto threads, so tid stands in
-- for task_id; idle tasks are left out, as Perfetto's idle thread (tid 0)
-- stands for every core's idle task and for time with no task known.
--
-- Columns:
--   tid        the task's thread id
--   task_name  its name
--   state      running, ready, blocked, suspended or deleted
--   count      stretches of time in that state
--   total_ns   total time in that state
--   pct        total_ns * 100 / trace duration, 2 decimals
WITH states AS (
  SELECT ts.utid, IIF(ts.dur < 0, trace_end() - ts.ts, ts.dur) AS dur,
    CASE ts.state
      WHEN 'Running' THEN 'running'
      WHEN 'R' THEN 'ready' WHEN 'R+' THEN 'ready'
      WHEN 'S' THEN 'blocked' WHEN 'D' THEN 'blocked'
      WHEN 'T' THEN 'suspended'
      WHEN 'Z' THEN 'deleted' WHEN 'X' THEN 'deleted'
      ELSE ts.state
    END AS state
  FROM thread_state ts
)
SELECT t.tid, t.name AS task_name, s.state, COUNT(*) AS count, SUM(s.dur) AS total_ns,
  ROUND(CAST(SUM(s.dur) AS DOUBLE) * 100 / NULLIF(trace_end(), 0), 2) AS pct
FROM states s
JOIN thread t USING (utid)
WHERE t.tid <> 0
GROUP BY t.tid, t.name, s.state
ORDER BY t.tid, s.state;
