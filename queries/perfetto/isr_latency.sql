-- ISR execution times per ISR: count, total, min/avg/percentiles/max, nesting, and inter-arrival times (jitter), from Perfetto's IRQ slices.
--
-- The rows of isr_latency.sql, from a trace exported by tband-perfetto. Each
-- ISR execution is an IRQ slice named `IRQ (<ISR name>)` on its core's IRQ
-- track (PerfettoSQL module linux.irqs; Perfetto cuts the slice name to 254
-- bytes, and so the ISR name). An execution still running when the trace
-- ended is open (dur -1) and left out of the statistics, but not of the
-- inter-arrival times. Percentiles are nearest-rank: pNN is the smallest
-- execution time t such that at least NN % of the executions took t or less.
--
-- Where the SQL form differs: there is no isr_id column, as Perfetto keeps
-- no IRQ number for an IRQ slice; an ISR is its core and name.
--
-- Columns:
--   core_id          the core
--   isr_name         the ISR's name
--   count            completed executions
--   total_ns         their total time
--   min_ns, avg_ns, p50_ns, p95_ns, p99_ns, max_ns   execution time (avg rounded to ns)
--   max_depth        deepest nesting it ran at (0 = interrupted task code only)
--   gap_min_ns, gap_avg_ns, gap_max_ns   time between consecutive entries (NULL with fewer than 2)
INCLUDE PERFETTO MODULE linux.irqs;

WITH executions AS (
  SELECT tr.id AS track_id, EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') AS core_id,
    IIF(i.name GLOB 'IRQ (*)', SUBSTR(i.name, 6, LENGTH(i.name) - 6),
      IIF(i.name GLOB 'IRQ (*', SUBSTR(i.name, 6), i.name)) AS isr_name,
    i.ts, i.dur, sl.depth
  FROM linux_hard_irqs i
  JOIN slice sl ON sl.id = i.id
  JOIN track tr ON tr.id = sl.track_id
), done AS (
  SELECT track_id, core_id, isr_name, dur, depth,
    ROW_NUMBER() OVER (PARTITION BY track_id, isr_name ORDER BY dur) AS rn,
    COUNT(*) OVER (PARTITION BY track_id, isr_name) AS n
  FROM executions WHERE dur >= 0
), stats AS (
  SELECT track_id, core_id, isr_name, COUNT(*) AS count, SUM(dur) AS total_ns, MIN(dur) AS min_ns,
    CAST(ROUND(AVG(dur)) AS INT) AS avg_ns,
    MIN(IIF(rn * 100 >= n * 50, dur, NULL)) AS p50_ns,
    MIN(IIF(rn * 100 >= n * 95, dur, NULL)) AS p95_ns,
    MIN(IIF(rn * 100 >= n * 99, dur, NULL)) AS p99_ns,
    MAX(dur) AS max_ns, MAX(depth) AS max_depth
  FROM done GROUP BY track_id, core_id, isr_name
), gaps AS (
  SELECT track_id, isr_name,
    ts - LAG(ts) OVER (PARTITION BY track_id, isr_name ORDER BY ts) AS gap_ns
  FROM executions
), gap_stats AS (
  SELECT track_id, isr_name, MIN(gap_ns) AS gap_min_ns, CAST(ROUND(AVG(gap_ns)) AS INT) AS gap_avg_ns,
    MAX(gap_ns) AS gap_max_ns
  FROM gaps GROUP BY track_id, isr_name
)
SELECT s.core_id, s.isr_name, s.count, s.total_ns, s.min_ns, s.avg_ns, s.p50_ns, s.p95_ns, s.p99_ns,
  s.max_ns, s.max_depth, g.gap_min_ns, g.gap_avg_ns, g.gap_max_ns
FROM stats s
JOIN gap_stats g USING (track_id, isr_name)
ORDER BY s.core_id, s.isr_name;
