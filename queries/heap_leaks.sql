-- Heap blocks a task or ISR allocated and never freed (leaks, or a trace cut short), with who allocated them.
--
-- Meant for --fail-if-rows in CI as well: every row is a block still
-- allocated when the trace ended.
--
-- Blocks allocated before any task or ISR ran (the start-up allocations
-- of the kernel and the application, which live as long as the firmware)
-- are not leaks: heap_usage counts them in live_at_end.
--
-- Columns:
--   heap_name      the heap
--   addr           the block's address, in hexadecimal
--   size           its bytes
--   start_ns       when it was allocated
--   age_ns         how long it had been allocated when the trace ended
--   alloc_core_id  the core it was allocated on
--   allocated_by   the task or ISR that allocated it
SELECT h.name AS heap_name, printf('0x%x', b.addr) AS addr, b.size, b.start_ns, b.dur_ns AS age_ns,
  b.alloc_core_id, COALESCE(t.name, i.name) AS allocated_by
FROM heap_blocks b
JOIN heaps h ON h.heap_id = b.heap_id
LEFT JOIN tasks t ON t.task_id = b.alloc_task_id
LEFT JOIN isrs i ON i.core_id = b.alloc_core_id AND i.isr_id = b.alloc_isr_id
WHERE b.truncated = 1 AND (b.alloc_task_id IS NOT NULL OR b.alloc_isr_id IS NOT NULL)
ORDER BY b.start_ns, b.block_id
