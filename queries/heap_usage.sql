-- Heap usage: per heap, its peak (when first reached, and by whom), the bytes in use at the end, blocks allocated and still live, failed allocations.
--
-- The peak is the most bytes in use at once; peak_by is the task or ISR
-- whose allocation reached it (the first block allocated at peak_ns).
-- A heap with no allocation has no row.
--
-- Key: heap_name
--
-- Columns:
--   heap_name      the heap
--   total_size     the bytes it has (NULL when the trace does not say)
--   peak_bytes     the most bytes in use at once
--   peak_ns        when they were first in use
--   peak_by        the task or ISR whose allocation reached the peak (NULL when unknown)
--   in_use_at_end  bytes in use when the trace ended
--   blocks         blocks allocated
--   live_at_end    blocks never freed (see heap_leaks)
--   failed         allocations it could not satisfy
WITH peak_blocks AS (
  SELECT h.heap_id, MIN(b.block_id) AS block_id
  FROM heaps h JOIN heap_blocks b ON b.heap_id = h.heap_id AND b.start_ns = h.peak_ns
  GROUP BY h.heap_id
), last_levels AS (
  SELECT heap_id, MAX(rowid) AS level_row FROM heap_levels GROUP BY heap_id
), blocks AS (
  SELECT heap_id, COUNT(*) AS blocks, SUM(truncated) AS live_at_end
  FROM heap_blocks GROUP BY heap_id
), failed AS (
  SELECT heap_id, COUNT(*) AS failed FROM failed_allocations GROUP BY heap_id
)
SELECT h.name AS heap_name, h.total_size, h.peak_bytes, h.peak_ns,
  COALESCE(t.name, i.name) AS peak_by, l.bytes_in_use AS in_use_at_end,
  b.blocks, b.live_at_end, COALESCE(f.failed, 0) AS failed
FROM heaps h
JOIN blocks b ON b.heap_id = h.heap_id
JOIN last_levels ll ON ll.heap_id = h.heap_id
JOIN heap_levels l ON l.rowid = ll.level_row
LEFT JOIN peak_blocks p ON p.heap_id = h.heap_id
LEFT JOIN heap_blocks pb ON pb.block_id = p.block_id
LEFT JOIN tasks t ON t.task_id = pb.alloc_task_id
LEFT JOIN isrs i ON i.core_id = pb.alloc_core_id AND i.isr_id = pb.alloc_isr_id
LEFT JOIN failed f ON f.heap_id = h.heap_id
ORDER BY h.name, h.heap_id
