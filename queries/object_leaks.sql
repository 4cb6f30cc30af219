-- Objects begun and never ended (leaks, or a trace cut short), with who began them.
--
-- Meant for --fail-if-rows in CI as well: every row is an object still
-- live when the trace ended.
--
-- Columns:
--   kind           the kind of object (net_buf, ...)
--   pool_name      its pool's name (NULL without a pool)
--   key            the object's key
--   name           the name an event gave it
--   start_ns       when it was begun
--   age_ns         how long it had lived when the trace ended
--   begin_core_id  the core it was begun on
--   begun_by       the task or ISR that began it (NULL when unknown)
SELECT l.kind, l.pool_name, l.key, l.name, l.start_ns, l.dur_ns AS age_ns, l.begin_core_id,
  COALESCE(t.name, i.name) AS begun_by
FROM object_lifetimes l
LEFT JOIN tasks t ON t.task_id = l.begin_task_id
LEFT JOIN isrs i ON i.core_id = l.begin_core_id AND i.isr_id = l.begin_isr_id
WHERE l.truncated = 1
ORDER BY l.start_ns, l.lifetime_id
