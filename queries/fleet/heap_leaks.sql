-- heap_leaks over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/heap_leaks.sql.
SELECT b.trace, h.name AS heap_name, printf('0x%x', b.addr) AS addr, b.size, b.start_ns, b.dur_ns AS age_ns,
  b.alloc_core_id, COALESCE(t.name, i.name) AS allocated_by
FROM heap_blocks b
JOIN heaps h ON h.trace = b.trace AND h.heap_id = b.heap_id
LEFT JOIN tasks t ON t.trace = b.trace AND t.task_id = b.alloc_task_id
LEFT JOIN isrs i ON i.trace = b.trace AND i.core_id = b.alloc_core_id AND i.isr_id = b.alloc_isr_id
WHERE b.truncated = 1 AND (b.alloc_task_id IS NOT NULL OR b.alloc_isr_id IS NOT NULL)
ORDER BY b.trace, b.start_ns, b.block_id
