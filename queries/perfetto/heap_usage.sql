-- Heap usage: per heap, its peak (when first reached, and by whom), the bytes in use at the end, blocks allocated and still live, failed allocations, in a trace exported by tband-perfetto.
--
-- The rows of heap_usage.sql but its total_size column: the export does
-- not say how big a heap is.
--
-- Each heap is a group named after it under "Memory", holding the counter
-- track "in use" (its bytes in use after every allocation and free), the
-- track "failed allocations" (an instant per allocation it could not
-- satisfy) and a lane track `block <n>` per block live at once (a block
-- is a slice, debug.truncated when it was never freed; debug.core the core
-- that allocated it). The peak's allocation is the first block slice that
-- starts at the peak, by lane (each block takes the lowest free lane); who
-- made it is the ISR whose IRQ slice was running on its core then (the
-- innermost), else the thread running there.
--
-- Columns:
--   heap_name      the heap
--   peak_bytes     the most bytes in use at once
--   peak_ns        when they were first in use
--   peak_by        the task or ISR whose allocation reached the peak (NULL when unknown)
--   in_use_at_end  bytes in use when the trace ended
--   blocks         blocks allocated
--   live_at_end    blocks never freed (see heap_leaks)
--   failed         allocations it could not satisfy
INCLUDE PERFETTO MODULE linux.irqs;

WITH heaps AS (
  SELECT g.id AS heap_track, g.name AS heap_name
  FROM track g JOIN track m ON m.id = g.parent_id AND m.name = 'Memory'
  WHERE g.id NOT IN (SELECT id FROM counter_track)
), levels AS (
  SELECT k.parent_id AS heap_track, c.id, c.ts, CAST(c.value AS INT) AS bytes
  FROM counter c
  JOIN counter_track k ON k.id = c.track_id AND k.name = 'in use'
  WHERE k.parent_id IN (SELECT heap_track FROM heaps)
), peaks AS (
  SELECT l.heap_track, l.bytes AS peak_bytes, MIN(l.ts) AS peak_ns
  FROM levels l
  WHERE l.bytes = (SELECT MAX(m.bytes) FROM levels m WHERE m.heap_track = l.heap_track)
  GROUP BY l.heap_track, l.bytes
), blocks AS (
  SELECT k.parent_id AS heap_track, s.id, s.ts, CAST(SUBSTR(k.name, 7) AS INT) AS lane,
    EXTRACT_ARG(s.arg_set_id, 'debug.truncated') IS NOT NULL AS truncated,
    EXTRACT_ARG(s.arg_set_id, 'debug.core') AS core
  FROM slice s
  JOIN track k ON k.id = s.track_id AND k.name GLOB 'block [0-9]*'
  WHERE k.parent_id IN (SELECT heap_track FROM heaps)
), peak_blocks AS (
  SELECT p.heap_track,
    (SELECT b.id FROM blocks b WHERE b.heap_track = p.heap_track AND b.ts = p.peak_ns
     ORDER BY b.lane LIMIT 1) AS id
  FROM peaks p
), by_isr AS (
  SELECT b.id,
    (SELECT IIF(i.name GLOB 'IRQ (*)', SUBSTR(i.name, 6, LENGTH(i.name) - 6), i.name)
     FROM linux_hard_irqs i
     JOIN slice sl ON sl.id = i.id
     JOIN track tr ON tr.id = sl.track_id
     WHERE EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') = b.core
       AND i.ts <= b.ts AND (i.dur < 0 OR i.ts + i.dur >= b.ts)
     ORDER BY sl.depth DESC LIMIT 1) AS name
  FROM blocks b WHERE b.id IN (SELECT id FROM peak_blocks)
), by_task AS (
  SELECT b.id,
    (SELECT t.name FROM sched sc JOIN thread t USING (utid)
     WHERE sc.cpu = b.core AND sc.ts <= b.ts AND (sc.dur < 0 OR sc.ts + sc.dur >= b.ts)
     ORDER BY sc.ts DESC LIMIT 1) AS name
  FROM blocks b WHERE b.id IN (SELECT id FROM peak_blocks)
), counts AS (
  SELECT heap_track, COUNT(*) AS blocks, SUM(truncated) AS live_at_end
  FROM blocks GROUP BY heap_track
), failed AS (
  SELECT k.parent_id AS heap_track, COUNT(*) AS failed
  FROM slice s JOIN track k ON k.id = s.track_id AND k.name = 'failed allocations'
  GROUP BY k.parent_id
)
SELECT h.heap_name, p.peak_bytes, p.peak_ns, COALESCE(by_isr.name, by_task.name) AS peak_by,
  (SELECT l.bytes FROM levels l WHERE l.heap_track = h.heap_track
   ORDER BY l.ts DESC, l.id DESC LIMIT 1) AS in_use_at_end,
  c.blocks, c.live_at_end, COALESCE(f.failed, 0) AS failed
FROM heaps h
JOIN peaks p USING (heap_track)
JOIN counts c USING (heap_track)
LEFT JOIN peak_blocks pb USING (heap_track)
LEFT JOIN by_isr ON by_isr.id = pb.id
LEFT JOIN by_task ON by_task.id = pb.id
LEFT JOIN failed f USING (heap_track)
ORDER BY h.heap_name;
