-- ISR budget check: the ISRs with an execution longer than :max_ns (no rows = within budget).
--
-- Meant for --fail-if-rows in CI: every row is a violation.
--
-- Columns:
--   core_id     the core
--   isr_id      the ISR
--   isr_name    its name
--   violations  executions longer than the budget
--   worst_ns    the longest execution
--   first_ns    when the first violation started
--   budget_ns   the budget checked
--
-- Parameters:
--   max_ns = 100000   longest allowed execution of any ISR, in ns
SELECT s.core_id, s.isr_id, COALESCE(i.name, 'isr ' || CAST(s.isr_id AS TEXT)) AS isr_name,
  COUNT(*) AS violations, MAX(s.dur_ns) AS worst_ns, MIN(s.start_ns) AS first_ns,
  CAST(:max_ns AS BIGINT) AS budget_ns
FROM isr_slices s LEFT JOIN isrs i ON i.core_id = s.core_id AND i.isr_id = s.isr_id
WHERE s.truncated = 0 AND s.dur_ns > CAST(:max_ns AS BIGINT)
GROUP BY s.core_id, s.isr_id, i.name
ORDER BY s.core_id, s.isr_id
