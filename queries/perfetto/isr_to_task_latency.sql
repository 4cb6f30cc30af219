-- Latency from an ISR making a task ready (queue send or resume from an ISR) to that task running, per task, from Perfetto's thread_state table.
--
-- The rows of isr_to_task_latency.sql, from a trace exported by tband-perfetto.
-- A wake-up from an ISR is a sched_waking in interrupt context, which
-- Perfetto marks with irq_context = 1 on the Runnable thread state that
-- follows it; that state's duration is the latency, if the task ran next
-- (a task woken and then suspended or deleted before it ran is left out).
-- Percentiles are nearest-rank.
--
-- Where the SQL form differs: tasks are Perfetto threads, so tid stands in
-- for task_id.
--
-- Columns:
--   tid        the task's thread id
--   task_name  its name
--   count      ISR wake-ups followed by the task running
--   min_ns, p50_ns, p99_ns, max_ns   time from ready to running
WITH r AS (
  SELECT ts.utid, ts.dur AS latency_ns,
    ROW_NUMBER() OVER (PARTITION BY ts.utid ORDER BY ts.dur) AS rn,
    COUNT(*) OVER (PARTITION BY ts.utid) AS n
  FROM thread_state ts
  WHERE ts.state = 'R' AND ts.irq_context = 1 AND ts.dur >= 0
    AND EXISTS (SELECT 1 FROM thread_state n
                WHERE n.utid = ts.utid AND n.ts = ts.ts + ts.dur AND n.state = 'Running')
)
SELECT t.tid, t.name AS task_name, COUNT(*) AS count, MIN(latency_ns) AS min_ns,
  MIN(IIF(rn * 100 >= n * 50, latency_ns, NULL)) AS p50_ns,
  MIN(IIF(rn * 100 >= n * 99, latency_ns, NULL)) AS p99_ns,
  MAX(latency_ns) AS max_ns
FROM r
JOIN thread t USING (utid)
GROUP BY t.tid, t.name
ORDER BY t.tid;
