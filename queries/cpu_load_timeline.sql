-- CPU load per core over time, in windows of :window_ms.
--
-- A core is busy while a non-idle task runs on it or a depth-0 ISR runs (the
-- same definition as the total rows of cpu_load.sql). The last window ends
-- with the trace and may be shorter. Busy time per window is the difference
-- of the busy time before its two edges, found by one sweep (no range join).
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
  -- Busy pieces with the busy time before each on its core.
  SELECT c.core_id, c.start_ns, c.dur_ns,
    COALESCE(SUM(c.dur_ns) OVER (PARTITION BY c.core_id ORDER BY c.start_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before_ns
  FROM cpu_timeline c LEFT JOIN tasks t ON t.task_id = c.task_id
  WHERE c.in_isr = 1 OR (c.task_id IS NOT NULL AND COALESCE(t.kind, 'normal') <> 'idle')
), edges AS (
  SELECT c.core_id, w.start_ns AS t FROM cores c CROSS JOIN windows w
  UNION ALL
  SELECT c.core_id, p.duration_ns FROM cores c CROSS JOIN p WHERE EXISTS (SELECT 1 FROM windows)
), sweep AS (
  -- Edges and piece starts in time order; each edge finds the last piece started before it.
  SELECT core_id, t, is_edge,
    MAX(piece_start) OVER (PARTITION BY core_id ORDER BY t, is_edge ROWS UNBOUNDED PRECEDING) AS last_start
  FROM (
    SELECT core_id, start_ns AS t, start_ns AS piece_start, 0 AS is_edge FROM busy
    UNION ALL
    SELECT core_id, t, NULL, 1 FROM edges
  ) x
), busy_before AS (
  SELECT s.core_id, s.t,
    COALESCE(b.before_ns, 0)
    + CASE WHEN b.start_ns IS NULL THEN 0
           WHEN s.t - b.start_ns < b.dur_ns THEN s.t - b.start_ns
           ELSE b.dur_ns END AS ns
  FROM sweep s LEFT JOIN busy b ON b.core_id = s.core_id AND b.start_ns = s.last_start
  WHERE s.is_edge = 1
), windowed AS (
  SELECT core_id, t AS window_start_ns,
    LEAD(t) OVER (PARTITION BY core_id ORDER BY t) AS window_end_ns,
    LEAD(ns) OVER (PARTITION BY core_id ORDER BY t) - ns AS busy_ns
  FROM busy_before
)
SELECT core_id, window_start_ns, window_end_ns, busy_ns,
  ROUND(CAST(busy_ns AS DOUBLE) * 100 / NULLIF(window_end_ns - window_start_ns, 0), 2) AS load_pct
FROM windowed WHERE window_end_ns IS NOT NULL
ORDER BY core_id, window_start_ns
