-- Trace health: dropped events, invalid frames, other anomalies and intervals never closed, from the "Trace health" track and the open slices.
--
-- The rows of trace_health.sql, from a trace exported by tband-perfetto: the
-- damage is on the "Trace health" track (its slices and instants, named by
-- kind, with the argument debug.count; its end_of_trace instant is not
-- damage), and what the end of the trace cut is open (dur -1).
--
-- Where the SQL form differs: there is no events row (the export does not
-- carry the number of events decoded) and no coverage row (Perfetto's idle
-- thread stands both for idle tasks and for time with no task known).
-- open_isr_slices counts only the ISRs the end of the trace cut, not those
-- whose exit was lost before it (which the export ends where the model does).
--
-- Columns:
--   kind   what is counted
--   count  how many
--   pct    NULL (the SQL form's coverage row has a percentage)
INCLUDE PERFETTO MODULE linux.irqs;

WITH health AS (
  SELECT s.name AS kind, EXTRACT_ARG(s.arg_set_id, 'debug.count') AS count
  FROM slice s
  JOIN track t ON t.id = s.track_id AND t.name = 'Trace health'
  WHERE s.name <> 'end_of_trace'
), open_slices AS (
  SELECT s.id, t.name AS track, t.type, g.name AS parent, o.name AS grandparent
  FROM slice s
  JOIN track t ON t.id = s.track_id
  LEFT JOIN track g ON g.id = t.parent_id
  LEFT JOIN track o ON o.id = g.parent_id
  WHERE s.dur < 0
), rows_ AS (
  SELECT 2 AS pos, 'invalid_frames' AS kind,
    COALESCE((SELECT SUM(count) FROM health WHERE kind = 'invalid_frame'), 0) AS count
  UNION ALL SELECT 3, 'dropped_events',
    COALESCE((SELECT SUM(count) FROM health WHERE kind = 'dropped_events'), 0)
  UNION ALL SELECT 4, kind, SUM(count) FROM health
    WHERE kind NOT IN ('dropped_events', 'invalid_frame') GROUP BY kind
  UNION ALL SELECT 5, 'open_isr_slices', (SELECT COUNT(*) FROM linux_hard_irqs WHERE dur < 0)
  UNION ALL SELECT 6, 'open_marker_spans', (SELECT COUNT(*) FROM open_slices
    WHERE track NOT IN ('Wait reason', 'Trace health') AND type NOT GLOB '*irq*'
      AND COALESCE(parent, '') <> 'Mutex holders' AND COALESCE(grandparent, '') NOT IN ('Objects', 'Memory'))
  UNION ALL SELECT 7, 'open_mutex_holds', (SELECT COUNT(*) FROM open_slices WHERE parent = 'Mutex holders')
)
SELECT kind, count, NULL AS pct FROM rows_ ORDER BY pos, kind;
