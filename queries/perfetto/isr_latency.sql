-- ISR execution times per core and ISR, from the IRQ slices of a trace exported by tband-perfetto.
--
-- Each ISR execution is an IRQ slice named `IRQ (<ISR name>)` on its core's
-- IRQ track (PerfettoSQL module linux.irqs; Perfetto cuts the slice name to
-- 254 bytes, and so the ISR name). Percentiles are nearest-rank: pNN is the smallest
-- execution time t such that at least NN % of the executions took t or less.
-- An execution still running when the trace ended (dur -1) is left out.
--
-- Columns:
--   cpu        the core
--   isr_name   the ISR's name
--   count      completed executions
--   total_ns   their total time
--   min_ns, avg_ns, p50_ns, p95_ns, p99_ns, max_ns   execution time (avg rounded to ns)
--   max_depth  deepest nesting it ran at (0 = it interrupted task code)
INCLUDE PERFETTO MODULE linux.irqs;

WITH done AS (
  SELECT EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') AS cpu,
    IIF(i.name GLOB 'IRQ (*)', SUBSTR(i.name, 6, LENGTH(i.name) - 6),
      IIF(i.name GLOB 'IRQ (*', SUBSTR(i.name, 6), i.name)) AS isr_name,
    i.dur, sl.depth,
    ROW_NUMBER() OVER (PARTITION BY tr.id, i.name ORDER BY i.dur) AS rn,
    COUNT(*) OVER (PARTITION BY tr.id, i.name) AS n
  FROM linux_hard_irqs i
  JOIN slice sl ON sl.id = i.id
  JOIN track tr ON tr.id = sl.track_id
  WHERE i.dur >= 0
)
SELECT cpu, isr_name, COUNT(*) AS count, SUM(dur) AS total_ns, MIN(dur) AS min_ns,
  CAST(ROUND(AVG(dur)) AS INT) AS avg_ns,
  MIN(IIF(rn * 100 >= n * 50, dur, NULL)) AS p50_ns,
  MIN(IIF(rn * 100 >= n * 95, dur, NULL)) AS p95_ns,
  MIN(IIF(rn * 100 >= n * 99, dur, NULL)) AS p99_ns,
  MAX(dur) AS max_ns, MAX(depth) AS max_depth
FROM done
GROUP BY cpu, isr_name
ORDER BY cpu, isr_name;
