-- ci/isr_budget over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/ci/isr_budget.sql.
--
-- Parameters:
--   max_ns = 100000   longest allowed execution of any ISR, in ns
SELECT s.trace, s.core_id, s.isr_id, COALESCE(i.name, 'isr ' || CAST(s.isr_id AS STRING)) AS isr_name,
  COUNT(*) AS violations, MAX(s.dur_ns) AS worst_ns, MIN(s.start_ns) AS first_ns,
  CAST(:max_ns AS BIGINT) AS budget_ns
FROM isr_slices s LEFT JOIN isrs i ON i.trace = s.trace AND i.core_id = s.core_id AND i.isr_id = s.isr_id
WHERE s.truncated = 0 AND s.dur_ns > CAST(:max_ns AS BIGINT)
GROUP BY s.trace, s.core_id, s.isr_id, i.name
ORDER BY s.trace, s.core_id, s.isr_id
