-- pool_low_water over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/pool_low_water.sql.
WITH lows AS (
  SELECT trace, kind, pool_key, counter, COUNT(*) AS samples, MIN(value) AS low_water
  FROM object_counters GROUP BY trace, kind, pool_key, counter
)
SELECT l.trace, l.kind, MIN(c.pool_name) AS pool_name, l.pool_key, l.counter, l.samples, l.low_water,
  MIN(CASE WHEN c.value = l.low_water THEN c.ts_ns END) AS low_water_ns
FROM lows l
JOIN object_counters c ON c.trace = l.trace AND c.kind = l.kind AND c.pool_key = l.pool_key
  AND c.counter = l.counter
GROUP BY l.trace, l.kind, l.pool_key, l.counter, l.samples, l.low_water
ORDER BY l.trace, l.kind, pool_name, l.counter, l.pool_key
