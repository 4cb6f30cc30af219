-- Heap budget check: the heaps whose peak went above :max_peak_bytes in use (no rows = within budget).
--
-- Meant for --fail-if-rows in CI: every row is a violation.
--
-- Columns:
--   heap_id       the heap
--   heap_name     its name
--   total_size    the bytes it has (NULL when the trace does not say)
--   peak_bytes    the most bytes in use at once
--   peak_ns       when they were first in use
--   first_ns      when more than the budget was first in use
--   budget_bytes  the budget checked
--
-- Parameters:
--   max_peak_bytes = 65536   most bytes allowed in use at once in any heap
SELECT h.heap_id, h.name AS heap_name, h.total_size, h.peak_bytes, h.peak_ns,
  MIN(l.ts_ns) AS first_ns, CAST(:max_peak_bytes AS BIGINT) AS budget_bytes
FROM heaps h JOIN heap_levels l ON l.heap_id = h.heap_id
WHERE l.bytes_in_use > CAST(:max_peak_bytes AS BIGINT)
GROUP BY h.heap_id, h.name, h.total_size, h.peak_bytes, h.peak_ns
ORDER BY h.heap_id
