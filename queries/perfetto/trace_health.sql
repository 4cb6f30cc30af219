-- Damage found while decoding (lost events, invalid frames, ...): the "Trace health" track of a trace exported by tband-perfetto.
--
-- The track's end_of_trace instant (where the trace ends) is not damage.
--
-- Columns:
--   kind      dropped_events, invalid_frame, unknown_event, time_backwards, ...
--   episodes  how many times it was found
--   count     total count (e.g. events lost), from the slice argument debug.count
--   first_ts  when it was first found
SELECT s.name AS kind, COUNT(*) AS episodes,
  SUM(EXTRACT_ARG(s.arg_set_id, 'debug.count')) AS count, MIN(s.ts) AS first_ts
FROM slice s
JOIN track t ON t.id = s.track_id AND t.name = 'Trace health'
WHERE s.name <> 'end_of_trace'
GROUP BY s.name
ORDER BY first_ts;
