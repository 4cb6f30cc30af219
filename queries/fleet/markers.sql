-- markers over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/markers.sql.
--
-- Of the values at a marker's last time, the last recorded is the one with
-- the highest file_row_number, its place in the trace's file.
WITH durations AS (
  SELECT trace, marker_id, task_id, msg, dur_ns, COUNT(*) AS c
  FROM marker_spans WHERE truncated = 0 GROUP BY trace, marker_id, task_id, msg, dur_ns
), spans AS (
  SELECT trace, marker_id, task_id, msg, dur_ns, c,
    SUM(c) OVER (PARTITION BY trace, marker_id, task_id, msg ORDER BY dur_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
    SUM(c) OVER (PARTITION BY trace, marker_id, task_id, msg) AS n
  FROM durations
), span_stats AS (
  SELECT trace, marker_id, task_id, 'span' AS what, msg, SUM(c) AS count, SUM(dur_ns * c) AS total_ns,
    MIN(dur_ns) AS min_ns, CAST(ROUND(CAST(SUM(dur_ns * c) AS DOUBLE) / SUM(c)) AS BIGINT) AS avg_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns, MAX(dur_ns) AS max_ns,
    CAST(NULL AS BIGINT) AS value_min, CAST(NULL AS BIGINT) AS value_max, CAST(NULL AS BIGINT) AS value_last
  FROM spans GROUP BY trace, marker_id, task_id, msg
), instant_stats AS (
  SELECT trace, marker_id, task_id, 'instant' AS what, msg, COUNT(*) AS count,
    CAST(NULL AS BIGINT) AS total_ns, CAST(NULL AS BIGINT) AS min_ns, CAST(NULL AS BIGINT) AS avg_ns,
    CAST(NULL AS BIGINT) AS p50_ns, CAST(NULL AS BIGINT) AS max_ns,
    CAST(NULL AS BIGINT) AS value_min, CAST(NULL AS BIGINT) AS value_max, CAST(NULL AS BIGINT) AS value_last
  FROM marker_instants GROUP BY trace, marker_id, task_id, msg
), last_ts AS (
  SELECT trace, marker_id, task_id, MAX(ts_ns) AS ts_ns FROM marker_values GROUP BY trace, marker_id, task_id
), last_row AS (
  SELECT v.trace, v.marker_id, v.task_id, MAX(v.file_row_number) AS id
  FROM marker_values v JOIN last_ts l ON l.trace = v.trace AND l.marker_id = v.marker_id
    AND l.task_id IS NOT DISTINCT FROM v.task_id AND l.ts_ns = v.ts_ns
  GROUP BY v.trace, v.marker_id, v.task_id
), value_stats AS (
  SELECT v.trace, v.marker_id, v.task_id, 'value' AS what, CAST(NULL AS STRING) AS msg, COUNT(*) AS count,
    CAST(NULL AS BIGINT) AS total_ns, CAST(NULL AS BIGINT) AS min_ns, CAST(NULL AS BIGINT) AS avg_ns,
    CAST(NULL AS BIGINT) AS p50_ns, CAST(NULL AS BIGINT) AS max_ns,
    MIN(v.value) AS value_min, MAX(v.value) AS value_max,
    MAX(CASE WHEN v.file_row_number = l.id THEN v.value END) AS value_last
  FROM marker_values v JOIN last_row l ON l.trace = v.trace AND l.marker_id = v.marker_id
    AND l.task_id IS NOT DISTINCT FROM v.task_id
  GROUP BY v.trace, v.marker_id, v.task_id
), all_rows AS (
  SELECT * FROM span_stats UNION ALL SELECT * FROM instant_stats UNION ALL SELECT * FROM value_stats
)
SELECT r.trace, r.marker_id, r.task_id,
  COALESCE(m.name, 'marker ' || CAST(r.marker_id AS STRING)) AS marker_name, r.what, r.msg, r.count,
  r.total_ns, r.min_ns, r.avg_ns, r.p50_ns, r.max_ns, r.value_min, r.value_max, r.value_last
FROM all_rows r
LEFT JOIN markers m ON m.trace = r.trace AND m.marker_id = r.marker_id
  AND m.task_id IS NOT DISTINCT FROM r.task_id
  AND m.kind = CASE WHEN r.what = 'value' THEN 'value' ELSE 'event' END
ORDER BY r.trace, r.what, r.marker_id, COALESCE(r.task_id, -1), r.msg
