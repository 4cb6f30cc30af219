-- Task responsiveness: ready-to-running latency (scheduling delay), run-slice lengths and preemptions, per task, from Perfetto's thread_state and sched tables.
--
-- The rows of task_response.sql, from a trace exported by tband-perfetto. A
-- ready latency is a Runnable thread state (R, or R+ when preempted) that
-- ended with the task running; a slice a `sched` slice of the task that
-- ended (not open at the end of the trace); a preemption an R+ state.
-- Every thread of the firmware's process but its own (the process, not a
-- task) is a task. Percentiles are nearest-rank.
--
-- Where the SQL form differs: tasks are Perfetto threads, so tid stands in
-- for task_id; idle tasks are left out, as Perfetto's idle thread (tid 0)
-- stands for every core's idle task and for time with no task known.
--
-- Columns:
--   tid           the task's thread id
--   task_name     its name
--   ready_count   ready states that ended with the task running
--   ready_p50_ns, ready_p95_ns, ready_p99_ns, ready_max_ns   ready-to-running latency
--   slices        completed slices
--   slice_min_ns, slice_avg_ns, slice_max_ns   slice length (avg rounded to ns)
--   preemptions   times it went from running to ready because something else took the core
WITH ready AS (
  SELECT ts.utid, ts.dur AS latency_ns,
    ROW_NUMBER() OVER (PARTITION BY ts.utid ORDER BY ts.dur) AS rn,
    COUNT(*) OVER (PARTITION BY ts.utid) AS n
  FROM thread_state ts
  WHERE ts.state IN ('R', 'R+') AND ts.dur >= 0
    AND EXISTS (SELECT 1 FROM thread_state n
                WHERE n.utid = ts.utid AND n.ts = ts.ts + ts.dur AND n.state = 'Running')
), ready_stats AS (
  SELECT utid, COUNT(*) AS ready_count,
    MIN(IIF(rn * 100 >= n * 50, latency_ns, NULL)) AS ready_p50_ns,
    MIN(IIF(rn * 100 >= n * 95, latency_ns, NULL)) AS ready_p95_ns,
    MIN(IIF(rn * 100 >= n * 99, latency_ns, NULL)) AS ready_p99_ns,
    MAX(latency_ns) AS ready_max_ns
  FROM ready GROUP BY utid
), slice_stats AS (
  SELECT utid, COUNT(*) AS slices, MIN(dur) AS slice_min_ns,
    CAST(ROUND(AVG(dur)) AS INT) AS slice_avg_ns, MAX(dur) AS slice_max_ns
  FROM sched WHERE dur >= 0 GROUP BY utid
), preempted AS (
  SELECT utid, COUNT(*) AS preemptions FROM thread_state WHERE state = 'R+' GROUP BY utid
)
SELECT t.tid, t.name AS task_name,
  COALESCE(r.ready_count, 0) AS ready_count, r.ready_p50_ns, r.ready_p95_ns, r.ready_p99_ns, r.ready_max_ns,
  COALESCE(s.slices, 0) AS slices, s.slice_min_ns, s.slice_avg_ns, s.slice_max_ns,
  COALESCE(p.preemptions, 0) AS preemptions
FROM thread t
JOIN process pr USING (upid)
LEFT JOIN ready_stats r USING (utid)
LEFT JOIN slice_stats s USING (utid)
LEFT JOIN preempted p USING (utid)
WHERE t.tid <> 0 AND t.tid <> pr.pid
ORDER BY t.tid;
