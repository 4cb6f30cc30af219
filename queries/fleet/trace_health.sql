-- trace_health over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/trace_health.sql.
WITH sweep AS (
  -- The canned report's sweep over the slices' boundaries, per trace. Every
  -- boundary at one time gets the full count (the sum's frame takes in its
  -- peers), and only the last of them a later next boundary.
  SELECT trace, core_id, t,
    LEAD(t) OVER (PARTITION BY trace ORDER BY core_id, t) AS next_t,
    LEAD(core_id) OVER (PARTITION BY trace ORDER BY core_id, t) AS next_core,
    SUM(d) OVER (PARTITION BY trace ORDER BY core_id, t) AS slices
  FROM (
    SELECT trace, core_id, start_ns AS t, 1 AS d FROM sched_slices
    UNION ALL SELECT trace, core_id, end_ns, -1 FROM sched_slices
  ) edges
), known AS (
  SELECT trace, SUM(next_t - t) AS ns FROM sweep
  WHERE slices > 0 AND next_core = core_id AND next_t > t GROUP BY trace
), dropped AS (
  SELECT trace, SUM(count) AS count FROM anomalies WHERE kind = 'dropped_events' GROUP BY trace
), rows_ AS (
  SELECT trace, 1 AS pos, 'events' AS kind, events AS count, CAST(NULL AS DOUBLE) AS pct FROM trace_info
  UNION ALL SELECT trace, 2, 'invalid_frames', invalid_frames, NULL FROM trace_info
  UNION ALL SELECT i.trace, 3, 'dropped_events', COALESCE(d.count, 0), NULL
    FROM trace_info i LEFT JOIN dropped d ON d.trace = i.trace
  UNION ALL SELECT trace, 4, kind, SUM(count), NULL FROM anomalies
    WHERE kind NOT IN ('dropped_events', 'invalid_frame') GROUP BY trace, kind
  UNION ALL SELECT i.trace, 5, 'open_isr_slices', COUNT(s.trace), NULL
    FROM trace_info i LEFT JOIN isr_slices s ON s.trace = i.trace AND s.truncated = 1 GROUP BY i.trace
  UNION ALL SELECT i.trace, 6, 'open_marker_spans', COUNT(s.trace), NULL
    FROM trace_info i LEFT JOIN marker_spans s ON s.trace = i.trace AND s.truncated = 1 GROUP BY i.trace
  UNION ALL SELECT i.trace, 7, 'open_mutex_holds', COUNT(s.trace), NULL
    FROM trace_info i LEFT JOIN mutex_holds s ON s.trace = i.trace AND s.truncated = 1 GROUP BY i.trace
  UNION ALL SELECT i.trace, 8, 'coverage', COALESCE(k.ns, 0),
    ROUND(CAST(COALESCE(k.ns, 0) AS DOUBLE) * 100 / NULLIF(i.duration_ns * i.cores, 0), 2)
    FROM trace_info i LEFT JOIN known k ON k.trace = i.trace
)
SELECT trace, kind, count, pct FROM rows_ ORDER BY trace, pos, kind
