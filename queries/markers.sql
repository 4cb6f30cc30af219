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
WITH durations AS (
  -- Completed spans counted per distinct duration: the percentiles then sort
  -- the distinct durations, not every span.
  SELECT marker_id, task_id, msg, dur_ns, COUNT(*) AS c
  FROM marker_spans WHERE truncated = 0 GROUP BY marker_id, task_id, msg, dur_ns
), spans AS (
  SELECT marker_id, task_id, msg, dur_ns, c,
    SUM(c) OVER (PARTITION BY marker_id, task_id, msg ORDER BY dur_ns ROWS UNBOUNDED PRECEDING) AS upto,
    SUM(c) OVER (PARTITION BY marker_id, task_id, msg) AS n
  FROM durations
), span_stats AS (
  SELECT marker_id, task_id, 'span' AS what, msg, SUM(c) AS count, SUM(dur_ns * c) AS total_ns,
    MIN(dur_ns) AS min_ns, CAST(ROUND(CAST(SUM(dur_ns * c) AS DOUBLE) / SUM(c)) AS BIGINT) AS avg_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns, MAX(dur_ns) AS max_ns,
    CAST(NULL AS BIGINT) AS value_min, CAST(NULL AS BIGINT) AS value_max, CAST(NULL AS BIGINT) AS value_last
  FROM spans GROUP BY marker_id, task_id, msg
), instant_stats AS (
  SELECT marker_id, task_id, 'instant' AS what, msg, COUNT(*) AS count, NULL AS total_ns,
    NULL AS min_ns, NULL AS avg_ns, NULL AS p50_ns, NULL AS max_ns,
    NULL AS value_min, NULL AS value_max, NULL AS value_last
  FROM marker_instants GROUP BY marker_id, task_id, msg
), last_ts AS (
  SELECT marker_id, task_id, MAX(ts_ns) AS ts_ns FROM marker_values GROUP BY marker_id, task_id
), last_row AS (
  -- The last value of each marker: latest time, and of those the last recorded.
  SELECT v.marker_id, v.task_id, MAX(v.rowid) AS id
  FROM marker_values v JOIN last_ts l ON l.marker_id = v.marker_id
    AND l.task_id IS NOT DISTINCT FROM v.task_id AND l.ts_ns = v.ts_ns
  GROUP BY v.marker_id, v.task_id
), value_stats AS (
  SELECT v.marker_id, v.task_id, 'value' AS what, NULL AS msg, COUNT(*) AS count, NULL AS total_ns,
    NULL AS min_ns, NULL AS avg_ns, NULL AS p50_ns, NULL AS max_ns,
    MIN(v.value) AS value_min, MAX(v.value) AS value_max,
    MAX(CASE WHEN v.rowid = l.id THEN v.value END) AS value_last
  FROM marker_values v JOIN last_row l ON l.marker_id = v.marker_id AND l.task_id IS NOT DISTINCT FROM v.task_id
  GROUP BY v.marker_id, v.task_id
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
