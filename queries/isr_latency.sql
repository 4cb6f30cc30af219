-- ISR execution times per ISR: count, total, min/avg/percentiles/max, nesting, and inter-arrival times (jitter).
--
-- Executions whose exit was never seen (truncated) are left out of the
-- statistics. Percentiles are nearest-rank: pNN is the smallest execution
-- time t such that at least NN % of the executions took t or less.
--
-- Columns:
--   core_id          the core (ISR ids are per core)
--   isr_id           the ISR
--   isr_name         its name
--   count            completed executions
--   total_ns         their total time
--   min_ns, avg_ns, p50_ns, p95_ns, p99_ns, max_ns   execution time (avg rounded to ns)
--   max_depth        deepest nesting it ran at (0 = interrupted task code only)
--   gap_min_ns, gap_avg_ns, gap_max_ns   time between consecutive entries (NULL with fewer than 2)
WITH durations AS (
  -- Completed executions counted per distinct duration: the percentiles then
  -- sort the distinct durations, not every execution.
  SELECT core_id, isr_id, dur_ns, COUNT(*) AS c, MAX(depth) AS max_depth
  FROM isr_slices WHERE truncated = 0 GROUP BY core_id, isr_id, dur_ns
), done AS (
  SELECT core_id, isr_id, dur_ns, c, max_depth,
    SUM(c) OVER (PARTITION BY core_id, isr_id ORDER BY dur_ns ROWS UNBOUNDED PRECEDING) AS upto,
    SUM(c) OVER (PARTITION BY core_id, isr_id) AS n
  FROM durations
), stats AS (
  SELECT core_id, isr_id, SUM(c) AS count, SUM(dur_ns * c) AS total_ns, MIN(dur_ns) AS min_ns,
    CAST(ROUND(CAST(SUM(dur_ns * c) AS DOUBLE) / SUM(c)) AS BIGINT) AS avg_ns,
    MIN(CASE WHEN upto * 100 >= n * 50 THEN dur_ns END) AS p50_ns,
    MIN(CASE WHEN upto * 100 >= n * 95 THEN dur_ns END) AS p95_ns,
    MIN(CASE WHEN upto * 100 >= n * 99 THEN dur_ns END) AS p99_ns,
    MAX(dur_ns) AS max_ns, MAX(max_depth) AS max_depth
  FROM done GROUP BY core_id, isr_id
), gaps AS (
  SELECT core_id, isr_id,
    start_ns - LAG(start_ns) OVER (PARTITION BY core_id, isr_id ORDER BY start_ns) AS gap_ns
  FROM isr_slices
), gap_stats AS (
  SELECT core_id, isr_id, MIN(gap_ns) AS gap_min_ns, CAST(ROUND(AVG(gap_ns)) AS BIGINT) AS gap_avg_ns,
    MAX(gap_ns) AS gap_max_ns
  FROM gaps GROUP BY core_id, isr_id
)
SELECT s.core_id, s.isr_id, COALESCE(i.name, 'isr ' || CAST(s.isr_id AS TEXT)) AS isr_name, s.count, s.total_ns,
  s.min_ns, s.avg_ns, s.p50_ns, s.p95_ns, s.p99_ns, s.max_ns, s.max_depth,
  g.gap_min_ns, g.gap_avg_ns, g.gap_max_ns
FROM stats s
LEFT JOIN isrs i ON i.core_id = s.core_id AND i.isr_id = s.isr_id
LEFT JOIN gap_stats g ON g.core_id = s.core_id AND g.isr_id = s.isr_id
ORDER BY s.core_id, s.isr_id
