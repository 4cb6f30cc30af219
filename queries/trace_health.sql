-- Trace health: events, dropped events, invalid frames, other anomalies, intervals never closed, and coverage.
--
-- Rows, in this order: events; invalid_frames; dropped_events; one row per
-- other anomaly kind found (see the anomalies table); open_isr_slices,
-- open_marker_spans, open_mutex_holds (begun but never ended before the
-- trace ended); coverage (time with a known running task, summed over cores,
-- with pct of duration times cores).
--
-- Columns:
--   kind   what is counted
--   count  how many (for coverage: ns)
--   pct    for coverage: count * 100 / (duration * cores), 2 decimals; else NULL
WITH known AS (
  -- Time covered by scheduling slices, per core: a sweep over the slices'
  -- boundaries alone (the CPU timeline table also cuts at every ISR boundary).
  -- Of the boundaries at one time only the last has the full count and a
  -- later next boundary; a core's last one is followed by another core's.
  SELECT COALESCE(SUM(next_t - t), 0) AS ns FROM (
    SELECT core_id, t, LEAD(t) OVER w AS next_t, LEAD(core_id) OVER w AS next_core,
      SUM(d) OVER w AS slices
    FROM (
      SELECT core_id, start_ns AS t, 1 AS d FROM sched_slices
      UNION ALL SELECT core_id, end_ns, -1 FROM sched_slices
    ) edges
    WINDOW w AS (ORDER BY core_id, t ROWS UNBOUNDED PRECEDING)
  ) sweep WHERE slices > 0 AND next_core = core_id AND next_t > t
), rows_ AS (
  SELECT 1 AS pos, 'events' AS kind, events AS count, CAST(NULL AS DOUBLE) AS pct FROM trace_info
  UNION ALL SELECT 2, 'invalid_frames', invalid_frames, NULL FROM trace_info
  UNION ALL SELECT 3, 'dropped_events',
    COALESCE((SELECT SUM(count) FROM anomalies WHERE kind = 'dropped_events'), 0), NULL
  UNION ALL SELECT 4, kind, SUM(count), NULL FROM anomalies
    WHERE kind NOT IN ('dropped_events', 'invalid_frame') GROUP BY kind
  UNION ALL SELECT 5, 'open_isr_slices', COUNT(*), NULL FROM isr_slices WHERE truncated = 1
  UNION ALL SELECT 6, 'open_marker_spans', COUNT(*), NULL FROM marker_spans WHERE truncated = 1
  UNION ALL SELECT 7, 'open_mutex_holds', COUNT(*), NULL FROM mutex_holds WHERE truncated = 1
  UNION ALL SELECT 8, 'coverage', known.ns,
    ROUND(CAST(known.ns AS DOUBLE) * 100 / NULLIF(trace_info.duration_ns * trace_info.cores, 0), 2)
    FROM known, trace_info
)
SELECT kind, count, pct FROM rows_ ORDER BY pos, kind
