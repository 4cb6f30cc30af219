-- CPU load per core and task in a trace exported by tband-perfetto, from Perfetto's own tables.
--
-- Perfetto bills ISR time to the task it interrupted: `sched` slices include
-- it. This report shows both: sched_ns (Perfetto's view) and run_ns (sched_ns
-- minus the depth-0 IRQ time inside the slices), which is the run time that
-- tband's own reports use. Idle time (tid 0) is left out, as Perfetto does.
-- The task running when the trace ended has an open slice; it is counted up
-- to the end of the trace.
--
-- Columns:
--   cpu        the core
--   tid        the task's thread id (tid 0 = idle is not listed)
--   task_name  its name
--   sched_ns   time scheduled on the core, ISR time included (Perfetto's view)
--   isr_ns     depth-0 IRQ time inside those slices
--   run_ns     sched_ns - isr_ns
--   load_pct   run_ns * 100 / trace duration, 2 decimals
INCLUDE PERFETTO MODULE linux.irqs;

WITH slices AS (
  SELECT s.cpu, s.utid, s.ts, IIF(s.dur < 0, trace_end() - s.ts, s.dur) AS dur
  FROM sched s
  JOIN thread t USING (utid)
  WHERE t.tid <> 0
), irqs AS (
  SELECT EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') AS cpu, i.ts, i.dur
  FROM linux_hard_irqs i
  JOIN slice sl ON sl.id = i.id
  JOIN track tr ON tr.id = sl.track_id
  WHERE i.parent_id IS NULL AND i.dur > 0
), isr_inside AS (
  SELECT s.cpu, s.utid,
    SUM(MIN(s.ts + s.dur, i.ts + i.dur) - MAX(s.ts, i.ts)) AS isr_ns
  FROM slices s
  JOIN irqs i ON i.cpu = s.cpu AND i.ts < s.ts + s.dur AND i.ts + i.dur > s.ts
  GROUP BY s.cpu, s.utid
), per_task AS (
  SELECT cpu, utid, SUM(dur) AS sched_ns FROM slices GROUP BY cpu, utid
)
SELECT p.cpu, t.tid, t.name AS task_name, p.sched_ns,
  COALESCE(i.isr_ns, 0) AS isr_ns,
  p.sched_ns - COALESCE(i.isr_ns, 0) AS run_ns,
  ROUND((p.sched_ns - COALESCE(i.isr_ns, 0)) * 100.0 / (trace_end() - trace_start()), 2) AS load_pct
FROM per_task p
JOIN thread t USING (utid)
LEFT JOIN isr_inside i ON i.cpu = p.cpu AND i.utid = p.utid
ORDER BY p.cpu, run_ns DESC;
