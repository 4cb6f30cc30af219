-- isr_latency over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/isr_latency.sql.
WITH durations AS (
  SELECT trace, core_id, isr_id, dur_ns, COUNT(*) AS c, MAX(depth) AS max_depth
  FROM isr_slices WHERE truncated = 0 GROUP BY trace, core_id, isr_id, dur_ns
), done AS (
  SELECT trace, core_id, isr_id, dur_ns, c, max_depth,
    SUM(c) OVER (PARTITION BY trace, core_id, isr_id ORDER BY dur_ns
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
    SUM(c) OVER (PARTITION BY trace, core_id, isr_id) AS n
  FROM durations
), stats AS (
  SELECT trace, core_id, isr_id, SUM(c) AS count, SUM(dur_ns * c) AS total_ns, MIN(dur_ns) AS min_ns,
    CAST(ROUND(CAST(SUM(dur_ns * c) AS DOUBLE) / SUM(c)) AS BIGINT) AS avg_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns,
    MIN(CASE WHEN upto * 100 >= n * 95 THEN dur_ns END) AS p95_ns,
    MIN(CASE WHEN upto * 100 >= n * 99 THEN dur_ns END) AS p99_ns,
    MAX(dur_ns) AS max_ns, MAX(max_depth) AS max_depth
  FROM done GROUP BY trace, core_id, isr_id
), gaps AS (
  SELECT trace, core_id, isr_id,
    start_ns - LAG(start_ns) OVER (PARTITION BY trace, core_id, isr_id ORDER BY start_ns) AS gap_ns
  FROM isr_slices
), gap_stats AS (
  SELECT trace, core_id, isr_id, MIN(gap_ns) AS gap_min_ns, CAST(ROUND(AVG(gap_ns)) AS BIGINT) AS gap_avg_ns,
    MAX(gap_ns) AS gap_max_ns
  FROM gaps GROUP BY trace, core_id, isr_id
)
SELECT s.trace, s.core_id, s.isr_id, COALESCE(i.name, 'isr ' || CAST(s.isr_id AS STRING)) AS isr_name,
  s.count, s.total_ns, s.min_ns, s.avg_ns, s.p50_ns, s.p95_ns, s.p99_ns, s.max_ns, s.max_depth,
  g.gap_min_ns, g.gap_avg_ns, g.gap_max_ns
FROM stats s
LEFT JOIN isrs i ON i.trace = s.trace AND i.core_id = s.core_id AND i.isr_id = s.isr_id
LEFT JOIN gap_stats g ON g.trace = s.trace AND g.core_id = s.core_id AND g.isr_id = s.isr_id
ORDER BY s.trace, s.core_id, s.isr_id
