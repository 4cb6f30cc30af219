-- heap_usage over a fleet: each trace's rows of the canned report, with the trace first.
--
-- Reads tables that hold every trace, told apart by their `trace` column
-- (a folder that `tband-query export` wrote). Written in the SQL that
-- DuckDB and Spark SQL both accept. Columns: trace, then those of
-- queries/heap_usage.sql.
WITH peak_blocks AS (
  SELECT h.trace, h.heap_id, MIN(b.block_id) AS block_id
  FROM heaps h
  JOIN heap_blocks b ON b.trace = h.trace AND b.heap_id = h.heap_id AND b.start_ns = h.peak_ns
  GROUP BY h.trace, h.heap_id
), last_levels AS (
  SELECT trace, heap_id, MAX(file_row_number) AS level_row FROM heap_levels GROUP BY trace, heap_id
), blocks AS (
  SELECT trace, heap_id, COUNT(*) AS blocks, SUM(truncated) AS live_at_end
  FROM heap_blocks GROUP BY trace, heap_id
), failed AS (
  SELECT trace, heap_id, COUNT(*) AS failed FROM failed_allocations GROUP BY trace, heap_id
)
SELECT h.trace, h.name AS heap_name, h.total_size, h.peak_bytes, h.peak_ns,
  COALESCE(t.name, i.name) AS peak_by, l.bytes_in_use AS in_use_at_end,
  b.blocks, b.live_at_end, COALESCE(f.failed, 0) AS failed
FROM heaps h
JOIN blocks b ON b.trace = h.trace AND b.heap_id = h.heap_id
JOIN last_levels ll ON ll.trace = h.trace AND ll.heap_id = h.heap_id
JOIN heap_levels l ON l.trace = h.trace AND l.file_row_number = ll.level_row
LEFT JOIN peak_blocks p ON p.trace = h.trace AND p.heap_id = h.heap_id
LEFT JOIN heap_blocks pb ON pb.trace = h.trace AND pb.block_id = p.block_id
LEFT JOIN tasks t ON t.trace = h.trace AND t.task_id = pb.alloc_task_id
LEFT JOIN isrs i ON i.trace = h.trace AND i.core_id = pb.alloc_core_id AND i.isr_id = pb.alloc_isr_id
LEFT JOIN failed f ON f.trace = h.trace AND f.heap_id = h.heap_id
ORDER BY h.trace, h.name, h.heap_id
