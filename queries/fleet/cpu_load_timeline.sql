-- cpu_load_timeline over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/cpu_load_timeline.sql.
--
-- Parameters:
--   window_ms = 10   window length in milliseconds (may be fractional)
WITH RECURSIVE p AS (
  SELECT trace, CAST(CAST(:window_ms AS DOUBLE) * 1000000 AS BIGINT) AS w, duration_ns FROM trace_info
), numbers AS (
  SELECT trace, CAST(0 AS BIGINT) AS k, CAST(1 AS BIGINT) AS span FROM p
  WHERE w > 0 AND duration_ns IS NOT NULL
  UNION ALL
  SELECT n.trace, n.k + bit.b * n.span, n.span * 2
  FROM numbers n JOIN p ON p.trace = n.trace CROSS JOIN (SELECT 0 AS b UNION ALL SELECT 1 AS b) bit
  WHERE n.span * p.w < p.duration_ns
    AND (bit.b = 0 OR (n.k + n.span) * p.w < p.duration_ns)
), windows AS (
  SELECT c.trace, c.core_id, n.k * p.w AS start_ns,
    CASE WHEN (n.k + 1) * p.w < p.duration_ns THEN (n.k + 1) * p.w ELSE p.duration_ns END AS end_ns
  FROM numbers n JOIN p ON p.trace = n.trace JOIN cores c ON c.trace = n.trace
  WHERE n.span * p.w >= p.duration_ns
), busy AS (
  SELECT trace, core_id, start_ns, end_ns,
    start_ns - start_ns % w AS first_ns, (end_ns - 1) - (end_ns - 1) % w AS last_ns, w
  FROM (
    SELECT c.trace, c.core_id, c.start_ns,
      CASE WHEN c.end_ns < p.duration_ns THEN c.end_ns ELSE p.duration_ns END AS end_ns, p.w
    FROM cpu_timeline c JOIN p ON p.trace = c.trace
    LEFT JOIN tasks t ON t.trace = c.trace AND t.task_id = c.task_id
    WHERE (c.in_isr = 1 OR (c.task_id IS NOT NULL AND COALESCE(t.kind, '') <> 'idle'))
      AND c.start_ns < p.duration_ns AND p.w > 0
  ) x
), parts AS (
  SELECT trace, core_id, first_ns AS window_ns,
    CASE WHEN end_ns < first_ns + w THEN end_ns ELSE first_ns + w END - start_ns AS ns, CAST(0 AS BIGINT) AS whole
  FROM busy
  UNION ALL
  SELECT trace, core_id, last_ns, end_ns - last_ns, 0 FROM busy WHERE last_ns > first_ns
  UNION ALL
  SELECT trace, core_id, first_ns + w, 0, w FROM busy WHERE last_ns > first_ns + w
  UNION ALL
  SELECT trace, core_id, last_ns, 0, -w FROM busy WHERE last_ns > first_ns + w
), per_window AS (
  SELECT trace, core_id, window_ns, SUM(ns) AS ns, SUM(whole) AS whole FROM parts
  GROUP BY trace, core_id, window_ns
), totals AS (
  SELECT w.trace, w.core_id, w.start_ns, w.end_ns, COALESCE(b.ns, 0) AS ns, COALESCE(b.whole, 0) AS whole
  FROM windows w LEFT JOIN per_window b
    ON b.trace = w.trace AND b.core_id = w.core_id AND b.window_ns = w.start_ns
), busy_windows AS (
  SELECT trace, core_id, start_ns, end_ns,
    ns + SUM(whole) OVER (PARTITION BY trace, core_id ORDER BY start_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS busy_ns
  FROM totals
)
SELECT trace, core_id, start_ns AS window_start_ns, end_ns AS window_end_ns, busy_ns,
  ROUND(CAST(busy_ns AS DOUBLE) * 100 / NULLIF(end_ns - start_ns, 0), 2) AS load_pct
FROM busy_windows
ORDER BY trace, core_id, window_start_ns
