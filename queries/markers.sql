-- Markers: spans per marker and message with duration statistics, instant counts, and value markers' min/max/last.
--
-- One row per (marker, task, message) for spans and for instants, and one per
-- value marker. Spans that never ended are left out of the duration
-- statistics. Percentiles are nearest-rank.
--
-- Columns:
--   marker_id    the marker
--   task_id      the task for task-local markers, NULL for global ones
--   marker_name  its name
--   what         span, instant or value
--   msg          the message (spans: given at the begin; NULL for values)
--   count        spans, instants or values
--   total_ns, min_ns, avg_ns, p50_ns, max_ns   span durations (NULL for instants and values)
--   value_min, value_max, value_last           values (NULL for spans and instants)
WITH spans AS (
  SELECT marker_id, task_id, msg, dur_ns,
    ROW_NUMBER() OVER (PARTITION BY marker_id, task_id, msg ORDER BY dur_ns) AS rn,
    COUNT(*) OVER (PARTITION BY marker_id, task_id, msg) AS n
  FROM marker_spans WHERE truncated = 0
), span_stats AS (
  SELECT marker_id, task_id, 'span' AS what, msg, COUNT(*) AS count, SUM(dur_ns) AS total_ns,
    MIN(dur_ns) AS min_ns, CAST(ROUND(AVG(dur_ns)) AS BIGINT) AS avg_ns,
    MIN(CASE WHEN rn * 100 >= n * 50 THEN dur_ns END) AS p50_ns, MAX(dur_ns) AS max_ns,
    CAST(NULL AS BIGINT) AS value_min, CAST(NULL AS BIGINT) AS value_max, CAST(NULL AS BIGINT) AS value_last
  FROM spans GROUP BY marker_id, task_id, msg
), instant_stats AS (
  SELECT marker_id, task_id, 'instant' AS what, msg, COUNT(*) AS count, NULL AS total_ns,
    NULL AS min_ns, NULL AS avg_ns, NULL AS p50_ns, NULL AS max_ns,
    NULL AS value_min, NULL AS value_max, NULL AS value_last
  FROM marker_instants GROUP BY marker_id, task_id, msg
), vals AS (
  SELECT marker_id, task_id, value,
    ROW_NUMBER() OVER (PARTITION BY marker_id, task_id ORDER BY ts_ns DESC, rowid DESC) AS from_last
  FROM marker_values
), value_stats AS (
  SELECT marker_id, task_id, 'value' AS what, NULL AS msg, COUNT(*) AS count, NULL AS total_ns,
    NULL AS min_ns, NULL AS avg_ns, NULL AS p50_ns, NULL AS max_ns,
    MIN(value) AS value_min, MAX(value) AS value_max,
    MAX(CASE WHEN from_last = 1 THEN value END) AS value_last
  FROM vals GROUP BY marker_id, task_id
), all_rows AS (
  SELECT * FROM span_stats UNION ALL SELECT * FROM instant_stats UNION ALL SELECT * FROM value_stats
)
SELECT r.marker_id, r.task_id,
  COALESCE(m.name, 'marker ' || CAST(r.marker_id AS TEXT)) AS marker_name, r.what, r.msg, r.count,
  r.total_ns, r.min_ns, r.avg_ns, r.p50_ns, r.max_ns, r.value_min, r.value_max, r.value_last
FROM all_rows r
LEFT JOIN markers m ON m.marker_id = r.marker_id AND m.task_id IS NOT DISTINCT FROM r.task_id
  AND m.kind = CASE WHEN r.what = 'value' THEN 'value' ELSE 'event' END
ORDER BY r.what, r.marker_id, COALESCE(r.task_id, -1), r.msg
