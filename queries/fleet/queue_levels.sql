-- queue_levels over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/queue_levels.sql.
WITH levels AS (
  SELECT o.trace, o.queue_id, o.len_after,
    COALESCE(LEAD(o.ts_ns) OVER (PARTITION BY o.trace, o.queue_id ORDER BY o.ts_ns, o.file_row_number),
             i.duration_ns) - o.ts_ns AS held_ns
  FROM queue_ops o JOIN trace_info i ON i.trace = o.trace WHERE o.len_after IS NOT NULL
), stats AS (
  SELECT trace, queue_id, COUNT(*) AS operations, MAX(len_after) AS high_water,
    SUM(len_after * held_ns) AS level_ns, SUM(held_ns) AS held_ns
  FROM levels GROUP BY trace, queue_id
), at_high AS (
  SELECT l.trace, l.queue_id, SUM(l.held_ns) AS high_water_ns
  FROM levels l
  JOIN stats s ON s.trace = l.trace AND s.queue_id = l.queue_id AND l.len_after = s.high_water
  GROUP BY l.trace, l.queue_id
)
SELECT s.trace, q.name AS queue_name, s.operations, s.high_water, h.high_water_ns,
  ROUND(CAST(s.level_ns AS DOUBLE) / NULLIF(s.held_ns, 0), 2) AS avg_level
FROM stats s
JOIN queues q ON q.trace = s.trace AND q.queue_id = s.queue_id
JOIN at_high h ON h.trace = s.trace AND h.queue_id = s.queue_id
ORDER BY s.trace, q.name, s.queue_id
