-- CPU load per core and task, with the time of interrupting ISRs taken out, and each core's overall load, from Perfetto's own tables.
--
-- The rows of cpu_load.sql, from a trace exported by tband-perfetto. Perfetto
-- bills ISR time to the task it interrupted (`sched` slices include it);
-- here, as in tband's own reports, a task's run time is its scheduled time
-- minus the depth-0 IRQ time inside its slices, shown in isr_ns. Each
-- core's idle task is Perfetto's idle thread (tid 0), with kind 'idle'. The
-- last row of each core (tid NULL, kind 'total') is its overall load: the
-- run time of its other tasks plus all depth-0 IRQ time on it. Slices and
-- IRQs still open when the trace ended count up to its end (trace_end():
-- times start at 0, the trace's first event).
--
-- Where the SQL form differs: tasks are Perfetto threads, so tid stands in
-- for task_id (the export numbers threads itself); and kind is 'normal'
-- for every task that is not idle, as the export does not say which one is
-- the timer service task.
--
-- Columns:
--   core_id    the core
--   tid        the task's thread id (NULL on a core's total row)
--   task_name  its name ('(core total)' on the total row)
--   kind       normal, idle, or total
--   run_ns     time it ran, ISR time excluded
--   isr_ns     ISR time inside its slices (on the total row: all depth-0 ISR time on the core)
--   load_pct   run_ns * 100 / trace duration (total row: (run_ns + isr_ns) * 100 / duration), 2 decimals
INCLUDE PERFETTO MODULE linux.irqs;
INCLUDE PERFETTO MODULE intervals.intersect;

WITH slices AS (
  SELECT s.id, s.cpu, s.utid, s.ts, IIF(s.dur < 0, trace_end() - s.ts, s.dur) AS dur
  FROM sched s
), irqs AS (
  SELECT i.id, EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') AS cpu, i.ts,
    IIF(i.dur < 0, trace_end() - i.ts, i.dur) AS dur
  FROM linux_hard_irqs i
  JOIN slice sl ON sl.id = i.id
  JOIN track tr ON tr.id = sl.track_id
  WHERE sl.depth = 0
), isr_inside AS (
  SELECT s.cpu, s.utid, SUM(ii.dur) AS isr_ns
  FROM _interval_intersect!((slices, irqs), (cpu)) ii
  JOIN slices s ON s.id = ii.id_0
  GROUP BY s.cpu, s.utid
), per_task AS (
  SELECT p.cpu, t.tid, t.name AS task_name, IIF(t.tid = 0, 'idle', 'normal') AS kind,
    p.sched_ns - COALESCE(i.isr_ns, 0) AS run_ns, COALESCE(i.isr_ns, 0) AS isr_ns
  FROM (SELECT cpu, utid, SUM(dur) AS sched_ns FROM slices GROUP BY cpu, utid) p
  JOIN thread t USING (utid)
  LEFT JOIN isr_inside i ON i.cpu = p.cpu AND i.utid = p.utid
), cores AS (
  SELECT cpu FROM slices UNION SELECT cpu FROM irqs
), totals AS (
  SELECT c.cpu, NULL AS tid, '(core total)' AS task_name, 'total' AS kind,
    COALESCE((SELECT SUM(run_ns) FROM per_task p WHERE p.cpu = c.cpu AND p.kind <> 'idle'), 0) AS run_ns,
    COALESCE((SELECT SUM(dur) FROM irqs i WHERE i.cpu = c.cpu), 0) AS isr_ns
  FROM cores c
), all_rows AS (
  SELECT cpu, tid, task_name, kind, run_ns, isr_ns, run_ns AS load_ns FROM per_task
  UNION ALL
  SELECT cpu, tid, task_name, kind, run_ns, isr_ns, run_ns + isr_ns FROM totals
)
SELECT cpu AS core_id, tid, task_name, kind, run_ns, isr_ns,
  ROUND(CAST(load_ns AS DOUBLE) * 100 / NULLIF(trace_end(), 0), 2) AS load_pct
FROM all_rows
ORDER BY core_id, tid IS NULL, tid;
