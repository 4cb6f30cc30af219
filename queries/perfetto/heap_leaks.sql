-- Heap blocks a task or ISR allocated and never freed (leaks, or a trace cut short), with who allocated them, in a trace exported by tband-perfetto.
--
-- The rows of heap_leaks.sql.
--
-- Each heap is a group named after it under "Memory", holding a lane
-- track `block <n>` per block live at once; a block is a slice on a lane
-- named `<size> B at <address>`. A leak is a block slice with the argument
-- debug.truncated (open, dur -1, when it was live at the end of the trace:
-- its age counts up to the end); debug.core is the core that allocated it.
-- Who allocated it is the ISR whose IRQ slice was running on that core
-- then (the innermost), else the thread running there; a block allocated
-- before any ran is a start-up allocation, not a leak.
--
-- Columns:
--   heap_name      the heap
--   addr           the block's address, in hexadecimal
--   size           its bytes
--   start_ns       when it was allocated
--   age_ns         how long it had been allocated when the trace ended
--   alloc_core_id  the core it was allocated on
--   allocated_by   the task or ISR that allocated it
INCLUDE PERFETTO MODULE linux.irqs;

WITH leaks AS (
  SELECT s.id, s.ts, IIF(s.dur < 0, trace_end() - s.ts, s.dur) AS dur, s.name, g.name AS heap_name,
    EXTRACT_ARG(s.arg_set_id, 'debug.core') AS core
  FROM slice s
  JOIN track k ON k.id = s.track_id AND k.name GLOB 'block [0-9]*'
  JOIN track g ON g.id = k.parent_id
  JOIN track m ON m.id = g.parent_id AND m.name = 'Memory'
  WHERE EXTRACT_ARG(s.arg_set_id, 'debug.truncated') IS NOT NULL
), by_isr AS (
  SELECT l.id,
    (SELECT IIF(i.name GLOB 'IRQ (*)', SUBSTR(i.name, 6, LENGTH(i.name) - 6), i.name)
     FROM linux_hard_irqs i
     JOIN slice sl ON sl.id = i.id
     JOIN track tr ON tr.id = sl.track_id
     WHERE EXTRACT_ARG(tr.dimension_arg_set_id, 'cpu') = l.core
       AND i.ts <= l.ts AND (i.dur < 0 OR i.ts + i.dur >= l.ts)
     ORDER BY sl.depth DESC LIMIT 1) AS name
  FROM leaks l
), by_task AS (
  SELECT l.id,
    (SELECT t.name FROM sched sc JOIN thread t USING (utid)
     WHERE sc.cpu = l.core AND sc.ts <= l.ts AND (sc.dur < 0 OR sc.ts + sc.dur >= l.ts)
     ORDER BY sc.ts DESC LIMIT 1) AS name
  FROM leaks l
)
SELECT l.heap_name, SUBSTR(l.name, INSTR(l.name, ' at ') + 4) AS addr,
  CAST(SUBSTR(l.name, 1, INSTR(l.name, ' ') - 1) AS INT) AS size,
  l.ts AS start_ns, l.dur AS age_ns, l.core AS alloc_core_id,
  COALESCE(by_isr.name, by_task.name) AS allocated_by
FROM leaks l
JOIN by_isr USING (id)
JOIN by_task USING (id)
WHERE COALESCE(by_isr.name, by_task.name) IS NOT NULL
ORDER BY l.ts, l.id;
