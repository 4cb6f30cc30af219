-- stack_margin over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/stack_margin.sql.
WITH lows AS (
  SELECT trace, task_id, MIN(free_bytes) AS min_free_bytes FROM stack_margins GROUP BY trace, task_id
), firsts AS (
  SELECT l.trace, l.task_id, l.min_free_bytes, MIN(s.ts_ns) AS min_free_ns
  FROM lows l
  JOIN stack_margins s ON s.trace = l.trace AND s.task_id = l.task_id AND s.free_bytes = l.min_free_bytes
  GROUP BY l.trace, l.task_id, l.min_free_bytes
)
SELECT f.trace, COALESCE(t.name, 'task ' || CAST(f.task_id AS STRING)) AS task_name, t.stack_size,
  f.min_free_bytes, f.min_free_ns,
  ROUND(CAST(t.stack_size - f.min_free_bytes AS DOUBLE) * 100 / NULLIF(t.stack_size, 0), 2) AS used_pct
FROM firsts f
LEFT JOIN tasks t ON t.trace = f.trace AND t.task_id = f.task_id
ORDER BY f.trace, f.min_free_bytes, task_name, f.task_id
