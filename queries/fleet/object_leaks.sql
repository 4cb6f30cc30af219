-- object_leaks over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/object_leaks.sql.
SELECT l.trace, l.kind, l.pool_name, l.key, l.name, l.start_ns, l.dur_ns AS age_ns, l.begin_core_id,
  COALESCE(t.name, i.name) AS begun_by
FROM object_lifetimes l
LEFT JOIN tasks t ON t.trace = l.trace AND t.task_id = l.begin_task_id
LEFT JOIN isrs i ON i.trace = l.trace AND i.core_id = l.begin_core_id AND i.isr_id = l.begin_isr_id
WHERE l.truncated = 1
ORDER BY l.trace, l.start_ns, l.lifetime_id
