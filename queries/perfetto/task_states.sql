-- Time each task spent in each state, from Perfetto's thread_state table of a trace exported by tband-perfetto.
--
-- tband-perfetto writes a task leaving the CPU as: preempted -> R+, ready
-- (woken) -> R, blocked or delayed -> S, suspended -> T, deleted -> Z
-- (Perfetto's letter for a thread that has exited). Why a
-- task was blocked (queue, semaphore, delay) is on its "Wait reason" track;
-- see wait_reasons.sql.
--
-- Columns:
--   tid        the task's thread id
--   task_name  its name
--   state      Running, R, R+, S, T or Z
--   count      stretches of time in that state
--   total_ns   total time in that state (an open last stretch counts up to the end of the trace)
--   pct        total_ns * 100 / trace duration, 2 decimals
SELECT t.tid, t.name AS task_name, ts.state, COUNT(*) AS count,
  SUM(IIF(ts.dur < 0, trace_end() - ts.ts, ts.dur)) AS total_ns,
  ROUND(SUM(IIF(ts.dur < 0, trace_end() - ts.ts, ts.dur)) * 100.0 / (trace_end() - trace_start()), 2) AS pct
FROM thread_state ts
JOIN thread t USING (utid)
WHERE t.tid <> 0
GROUP BY t.tid, t.name, ts.state
ORDER BY t.tid, ts.state;
