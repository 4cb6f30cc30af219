-- Marker spans per marker track and message, in a trace exported by tband-perfetto.
--
-- Marker tracks are named after their marker; task-local ones sit under the
-- task's thread, global ones in the "Markers" group. Instants count as spans
-- of 0 ns. A span that never ended (open: dur -1) is left out, and so are
-- the lanes of tracked objects (see object_lifetimes), the block lanes
-- and failed allocations of heaps (see heap_usage), and the operations on
-- event groups and timers, the notifications of tasks, log lines (see the
-- logs table of tband-query) and faults (see trace_health).
--
-- Columns:
--   marker     the marker track's name
--   message    the span's name (its message, or the marker name)
--   count      spans
--   total_ns, min_ns, max_ns   span durations
SELECT t.name AS marker, s.name AS message, COUNT(*) AS count,
  SUM(s.dur) AS total_ns, MIN(s.dur) AS min_ns, MAX(s.dur) AS max_ns
FROM slice s
JOIN track t ON t.id = s.track_id
WHERE t.name NOT IN ('Wait reason', 'Trace health', 'Notifications', 'Logs', 'fault')
  AND t.type NOT GLOB '*irq*'
  AND s.dur >= 0
  AND NOT EXISTS (SELECT 1 FROM track g WHERE g.id = t.parent_id
                  AND g.name IN ('Mutex holders', 'Event groups', 'Timers', 'Logs', 'Faults'))
  AND NOT EXISTS (SELECT 1 FROM track g JOIN track o ON o.id = g.parent_id
                  WHERE g.id = t.parent_id AND o.name IN ('Objects', 'Memory'))
GROUP BY t.name, s.name
ORDER BY total_ns DESC;
