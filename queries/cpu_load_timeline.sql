-- CPU load per core over time, in windows of :window_ms.
--
-- A core is busy while a non-idle task runs on it or a depth-0 ISR runs (the
-- same definition as the total rows of cpu_load.sql). The last window ends
-- with the trace and may be shorter. Each busy piece adds its time to the
-- windows it overlaps: directly to the first and last, and through a running
-- sum over the windows to those it covers whole (no range join).
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
--
-- Key: core_id, window_start_ns
WITH RECURSIVE p AS (
  SELECT CAST(CAST(:window_ms AS DOUBLE) * 1000000 AS BIGINT) AS w, duration_ns FROM trace_info
), numbers(k, span) AS (
  -- Window numbers k with k * w < duration (and 0), doubling the span each
  -- step: log2(windows) steps instead of one per window.
  SELECT CAST(0 AS BIGINT), CAST(1 AS BIGINT) FROM p WHERE w > 0 AND duration_ns IS NOT NULL
  UNION ALL
  SELECT numbers.k + bit.b * numbers.span, numbers.span * 2
  FROM numbers, p, (SELECT 0 AS b UNION ALL SELECT 1) bit
  WHERE numbers.span * p.w < p.duration_ns
    AND (bit.b = 0 OR (numbers.k + numbers.span) * p.w < p.duration_ns)
), windows AS (
  SELECT c.core_id, n.k * p.w AS start_ns,
    CASE WHEN (n.k + 1) * p.w < p.duration_ns THEN (n.k + 1) * p.w ELSE p.duration_ns END AS end_ns
  FROM numbers n, p, cores c WHERE n.span * p.w >= p.duration_ns
), busy AS MATERIALIZED (
  -- Busy pieces cut at the end of the trace, with the start of the first
  -- and of the last window each overlaps.
  SELECT core_id, start_ns, end_ns,
    start_ns - start_ns % w AS first_ns, (end_ns - 1) - (end_ns - 1) % w AS last_ns, w
  FROM (
    SELECT c.core_id, c.start_ns,
      CASE WHEN c.end_ns < p.duration_ns THEN c.end_ns ELSE p.duration_ns END AS end_ns, p.w
    FROM cpu_timeline c CROSS JOIN p
    WHERE (c.in_isr = 1 OR (c.task_id IS NOT NULL
        AND c.task_id NOT IN (SELECT task_id FROM tasks WHERE kind = 'idle')))
      AND c.start_ns < p.duration_ns AND p.w > 0
  ) x
), parts AS (
  -- Time in the first and last window overlapped, and +w / -w marking the
  -- run of windows covered whole between them.
  SELECT core_id, first_ns AS window_ns,
    CASE WHEN end_ns < first_ns + w THEN end_ns ELSE first_ns + w END - start_ns AS ns, 0 AS whole
  FROM busy
  UNION ALL
  SELECT core_id, last_ns, end_ns - last_ns, 0 FROM busy WHERE last_ns > first_ns
  UNION ALL
  SELECT core_id, first_ns + w, 0, w FROM busy WHERE last_ns > first_ns + w
  UNION ALL
  SELECT core_id, last_ns, 0, -w FROM busy WHERE last_ns > first_ns + w
), per_window AS (
  SELECT core_id, window_ns, SUM(ns) AS ns, SUM(whole) AS whole FROM parts GROUP BY core_id, window_ns
), totals AS (
  SELECT w.core_id, w.start_ns, w.end_ns, COALESCE(b.ns, 0) AS ns, COALESCE(b.whole, 0) AS whole
  FROM windows w LEFT JOIN per_window b ON b.core_id = w.core_id AND b.window_ns = w.start_ns
), busy_windows AS (
  SELECT core_id, start_ns, end_ns,
    ns + SUM(whole) OVER (PARTITION BY core_id ORDER BY start_ns ROWS UNBOUNDED PRECEDING) AS busy_ns
  FROM totals
)
SELECT core_id, start_ns AS window_start_ns, end_ns AS window_end_ns, busy_ns,
  ROUND(CAST(busy_ns AS DOUBLE) * 100 / NULLIF(end_ns - start_ns, 0), 2) AS load_pct
FROM busy_windows
ORDER BY core_id, window_start_ns
