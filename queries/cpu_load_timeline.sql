-- CPU load per core over time, in windows of :window_ms.
--
-- A core is busy while a non-idle task runs on it or a depth-0 ISR runs (the
-- same definition as the total rows of cpu_load.sql). The last window ends
-- with the trace and may be shorter.
--
-- Columns:
--   core_id          the core
--   window_start_ns  start of the window
--   window_end_ns    end of the window
--   busy_ns          busy time in the window
--   load_pct         busy_ns * 100 / window length, 2 decimals
--
-- Parameters:
--   window_ms = 10   window length in milliseconds (may be fractional)
WITH RECURSIVE p AS (
  SELECT CAST(CAST(:window_ms AS DOUBLE) * 1000000 AS BIGINT) AS w, duration_ns FROM trace_info
), windows(start_ns) AS (
  SELECT CAST(0 AS BIGINT) FROM p WHERE w > 0 AND duration_ns IS NOT NULL
  UNION ALL
  SELECT windows.start_ns + p.w FROM windows, p WHERE windows.start_ns + p.w < p.duration_ns
), busy AS (
  SELECT c.core_id, c.start_ns, c.end_ns,
    c.start_ns - c.start_ns % p.w AS first_ws,
    (c.end_ns - 1) - (c.end_ns - 1) % p.w AS last_ws
  FROM cpu_timeline c CROSS JOIN p LEFT JOIN tasks t ON t.task_id = c.task_id
  WHERE p.w > 0 AND (c.in_isr = 1 OR (c.task_id IS NOT NULL AND COALESCE(t.kind, 'normal') <> 'idle'))
), parts AS (
  SELECT core_id, first_ws AS ws, end_ns - start_ns AS ns FROM busy WHERE first_ws = last_ws
  UNION ALL
  SELECT b.core_id, w.start_ns,
    CASE WHEN b.end_ns < w.start_ns + p.w THEN b.end_ns ELSE w.start_ns + p.w END
    - CASE WHEN b.start_ns > w.start_ns THEN b.start_ns ELSE w.start_ns END
  FROM busy b JOIN windows w ON w.start_ns >= b.first_ws AND w.start_ns <= b.last_ws CROSS JOIN p
  WHERE b.first_ws < b.last_ws
), per_window AS (
  SELECT core_id, ws, SUM(ns) AS busy_ns FROM parts GROUP BY core_id, ws
)
SELECT c.core_id, w.start_ns AS window_start_ns,
  CASE WHEN w.start_ns + p.w < p.duration_ns THEN w.start_ns + p.w ELSE p.duration_ns END AS window_end_ns,
  COALESCE(b.busy_ns, 0) AS busy_ns,
  ROUND(CAST(COALESCE(b.busy_ns, 0) AS DOUBLE) * 100
    / NULLIF(CASE WHEN w.start_ns + p.w < p.duration_ns THEN p.w ELSE p.duration_ns - w.start_ns END, 0), 2) AS load_pct
FROM cores c CROSS JOIN windows w CROSS JOIN p
LEFT JOIN per_window b ON b.core_id = c.core_id AND b.ws = w.start_ns
ORDER BY c.core_id, w.start_ns
