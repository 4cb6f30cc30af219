-- ready_latency over a fleet: made once per fleet, before the forms that read it run.
--
-- The view of that name in a database of one trace (each ready state that
-- ended with the task running, and its latency), with `trace`. The state
-- after a ready state is found by an equality join on the trace, the task
-- and that time; several states of a task can start at the same time only
-- when all but the last last 0 ns, and the running state counts only if
-- none of those lies between the two (file_row_number, the model's order,
-- tells which came first).
CREATE TEMPORARY VIEW ready_latency AS
WITH ready AS (
  SELECT trace, file_row_number AS id, task_id, reason, woken_by_isr_core_id, woken_by_isr_id,
    start_ns, end_ns
  FROM task_states WHERE state = 'ready' AND truncated = 0
), running AS (
  SELECT trace, file_row_number AS id, task_id, start_ns FROM task_states WHERE state = 'running'
), passed_over AS (
  SELECT r.trace, r.id AS ready_id, n.id AS running_id FROM task_states i
  JOIN ready r ON r.trace = i.trace AND r.task_id = i.task_id AND r.end_ns = i.start_ns
    AND r.id < i.file_row_number
  JOIN running n ON n.trace = i.trace AND n.task_id = i.task_id AND n.start_ns = i.start_ns
    AND n.id > i.file_row_number
  WHERE i.end_ns = i.start_ns
)
SELECT r.trace, r.task_id, r.reason, r.woken_by_isr_core_id, r.woken_by_isr_id, r.start_ns AS ready_ns,
  n.start_ns AS running_ns, n.start_ns - r.start_ns AS latency_ns
FROM ready r
JOIN running n ON n.trace = r.trace AND n.task_id = r.task_id AND n.start_ns = r.end_ns AND n.id > r.id
LEFT JOIN passed_over p ON p.trace = r.trace AND p.ready_id = r.id AND p.running_id = n.id
WHERE p.ready_id IS NULL
