-- CPU load per core and task, with the time of interrupting ISRs taken out, and each core's overall load.
--
-- A task's run time on a core is the time it was scheduled there minus the
-- time depth-0 ISRs ran inside its slices (that ISR time is shown in isr_ns).
-- Idle tasks are listed with kind 'idle'; their time is idle time, not load.
-- The last row of each core (task_id NULL, kind 'total') is the core's overall
-- load: the run time of its non-idle tasks plus all depth-0 ISR time on it.
--
-- Columns:
--   core_id    the core
--   task_id    the task (NULL on a core's total row)
--   task_name  its name ('(core total)' on the total row)
--   kind       normal, idle, timer, or total
--   run_ns     time it ran, ISR time excluded
--   isr_ns     ISR time inside its slices (on the total row: all depth-0 ISR time on the core)
--   load_pct   run_ns * 100 / trace duration (total row: (run_ns + isr_ns) * 100 / duration), 2 decimals
WITH per_task AS MATERIALIZED (
  SELECT l.core_id, l.task_id, COALESCE(t.name, 'task ' || CAST(l.task_id AS TEXT)) AS task_name,
    COALESCE(t.kind, 'normal') AS kind, l.run_ns, l.isr_ns
  FROM task_run_time l LEFT JOIN tasks t ON t.task_id = l.task_id
), busy AS (
  SELECT core_id, SUM(run_ns) AS run_ns FROM per_task WHERE kind <> 'idle' GROUP BY core_id
), isr AS (
  SELECT core_id, SUM(dur_ns) AS isr_ns FROM isr_slices WHERE depth = 0 GROUP BY core_id
), totals AS (
  SELECT c.core_id, NULL AS task_id, '(core total)' AS task_name, 'total' AS kind,
    COALESCE(b.run_ns, 0) AS run_ns, COALESCE(i.isr_ns, 0) AS isr_ns
  FROM cores c LEFT JOIN busy b ON b.core_id = c.core_id LEFT JOIN isr i ON i.core_id = c.core_id
), all_rows AS (
  SELECT core_id, task_id, task_name, kind, run_ns, isr_ns, run_ns AS load_ns FROM per_task
  UNION ALL
  SELECT core_id, task_id, task_name, kind, run_ns, isr_ns, run_ns + isr_ns FROM totals
)
SELECT core_id, task_id, task_name, kind, run_ns, isr_ns,
  ROUND(CAST(load_ns AS DOUBLE) * 100 / (SELECT NULLIF(duration_ns, 0) FROM trace_info), 2) AS load_pct
FROM all_rows
ORDER BY core_id, CASE WHEN task_id IS NULL THEN 1 ELSE 0 END, task_id
