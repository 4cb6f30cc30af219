-- ci/heap_budget over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/ci/heap_budget.sql.
--
-- Parameters:
--   max_peak_bytes = 65536   most bytes allowed in use at once in any heap
SELECT h.trace, h.heap_id, h.name AS heap_name, h.total_size, h.peak_bytes, h.peak_ns,
  MIN(l.ts_ns) AS first_ns, CAST(:max_peak_bytes AS BIGINT) AS budget_bytes
FROM heaps h JOIN heap_levels l ON l.trace = h.trace AND l.heap_id = h.heap_id
WHERE l.bytes_in_use > CAST(:max_peak_bytes AS BIGINT)
GROUP BY h.trace, h.heap_id, h.name, h.total_size, h.peak_bytes, h.peak_ns
ORDER BY h.trace, h.heap_id
