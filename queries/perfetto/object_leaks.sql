-- Objects begun and never ended (leaks, or a trace cut short), with who began them, in a trace exported by tband-perfetto.
--
-- The rows of object_leaks.sql but its name column: the export names a
-- lifetime's slice after the object's key only.
--
-- A leak is a lifetime slice (see object_lifetimes) with the argument
-- debug.truncated (open, dur -1, when it was live at the end of the trace:
-- its age counts up to the end); debug.core is the core that began it. Who began it is
-- the ISR whose IRQ slice was running on that core then (the innermost),
-- else the thread running there.
--
-- Columns:
--   kind           the kind of object (net_buf, ...)
--   pool_name      its pool's name (NULL without a pool)
--   key            the object's key (the slice's name)
--   start_ns       when it was begun
--   age_ns         how long it had lived when the trace ended
--   begin_core_id  the core it was begun on
--   begun_by       the task or ISR that began it (NULL when unknown)
INCLUDE PERFETTO MODULE linux.irqs;

WITH leaks AS (
  SELECT s.id, s.ts, IIF(s.dur < 0, trace_end() - s.ts, s.dur) AS dur, s.name AS key, g.name AS pool_group,
    RTRIM(RTRIM(k.name, '0123456789'), ' ') AS kind,
    EXTRACT_ARG(s.arg_set_id, 'debug.core') AS core
  FROM slice s
  JOIN track k ON k.id = s.track_id
  JOIN track g ON g.id = k.parent_id
  JOIN track o ON o.id = g.parent_id AND o.name = 'Objects'
  WHERE s.depth = 0 AND EXTRACT_ARG(s.arg_set_id, 'debug.truncated') IS NOT NULL
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
SELECT l.kind, IIF(l.pool_group = l.kind, NULL, SUBSTR(l.pool_group, LENGTH(l.kind) + 2)) AS pool_name,
  l.key, l.ts AS start_ns, l.dur AS age_ns, l.core AS begin_core_id,
  COALESCE(by_isr.name, by_task.name) AS begun_by
FROM leaks l
JOIN by_isr USING (id)
JOIN by_task USING (id)
ORDER BY l.ts, l.id;
